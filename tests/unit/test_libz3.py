"""z3's library is opened from where the z3 package installed it, never from the folder a command
runs in (z3's own loader looks there first: a checkout holding `libz3.so.<version>` ran that
file's code); the binding answers as z3's own Python API does, errors included; a missing or
broken library is a checker error, not a traceback or an exit; a proof imports no z3 Python API."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, SPECS

from checker.errors import CheckerError
from checker.smt import libz3, solver

Z3_PACKAGE = os.path.dirname(importlib.util.find_spec("z3").origin)

# what a process maps of any file named libz3*, after making a context; "planted" makes the
# library be looked for in the working folder first, the control that shows the check sees it
_MAPS = r"""
import json, os, sys
from checker.smt import libz3, solver
if sys.argv[1] == "planted":
    planted = [os.path.join(os.getcwd(), n) for n in sorted(os.listdir(".")) if n.startswith("libz3")]
    libz3.candidates = lambda: planted
assert solver._interpreter().run("(check-sat)").strip() == "sat"
maps = set()
with open("/proc/self/maps") as fh:
    for line in fh:
        parts = line.split(None, 5)
        if len(parts) == 6 and "libz3" in os.path.basename(parts[5].strip()):
            maps.add(parts[5].strip())
print(json.dumps(sorted(maps)))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads what the process mapped in /proc/self/maps")
def test_a_library_in_the_working_folder_is_never_opened(tmp_path):
    """A copy of z3's library under each name the package gives it, in the working folder and on
    PATH and PYTHONPATH (all three are where z3's own loader looks): the process maps the package's
    library only. The control, the same copies put first, shows they would be seen."""
    names = [n for n in os.listdir(os.path.join(Z3_PACKAGE, "lib")) if n.startswith("libz3")]
    assert names
    for name in names:
        shutil.copyfile(os.path.join(Z3_PACKAGE, "lib", name), tmp_path / name)
    env = dict(os.environ, PATH=f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT]), Z3_LIBRARY_PATH=str(tmp_path))

    def mapped(mode):
        proc = subprocess.run([sys.executable, "-c", _MAPS, mode], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    safe = mapped("as installed")
    assert safe and all(p.startswith(os.path.realpath(Z3_PACKAGE) + os.sep) or p.startswith(Z3_PACKAGE + os.sep)
                        for p in safe), safe
    assert not any(p.startswith(str(tmp_path)) for p in safe)
    planted = mapped("planted")
    assert any(p.startswith(str(tmp_path)) for p in planted), planted


def test_the_candidates_are_the_installations_folders_only(tmp_path, monkeypatch):
    (tmp_path / "libz3.so").write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    found = libz3.candidates()
    assert found and not any(p.startswith(str(tmp_path)) for p in found)
    assert os.path.dirname(found[0]) in (os.path.join(Z3_PACKAGE, "lib"), Z3_PACKAGE)


TEXTS = [
    "(set-logic QF_BV)(declare-fun x () (_ BitVec 8))(push)(assert (= (bvadd x #x01) #x05))(check-sat)"
    "(get-value (x))(pop)",
    "(declare-fun y () (_ BitVec 4))(assert (bvult y #x0))(check-sat)",
    "(set-option :rlimit 1)(declare-fun a () (_ BitVec 32))(declare-fun b () (_ BitVec 32))"
    "(assert (= (bvmul a b) #x7fffffff))(assert (bvugt a #x00000001))(assert (bvugt b #x00000001))"
    "(check-sat)(get-info :reason-unknown)",
    "(echo \"\u00e9l\u00e9ment\")(check-sat)",
]


@pytest.mark.parametrize("text", TEXTS)
def test_the_binding_answers_as_z3s_own(text):
    import z3

    theirs = z3.Context()
    assert libz3.context().run(text) == z3.Z3_eval_smtlib2_string(theirs.ref(), text)


def test_a_rejected_command_says_what_z3s_own_says():
    import z3

    text = "(assert (bvugt undeclared #x02))"
    context = z3.Context()  # held: z3 deletes the C context when this is collected
    with pytest.raises(z3.Z3Exception) as theirs:
        z3.Z3_eval_smtlib2_string(context.ref(), text)
    ours = libz3.context()
    with pytest.raises(libz3.Z3Error) as exc:
        ours.run(text)
    said = theirs.value.value
    assert str(exc.value) == (said.decode() if isinstance(said, bytes) else str(said))
    assert isinstance(exc.value, CheckerError)
    assert ours.run("(check-sat)").strip() == "sat"  # the context goes on


def _foreign(tmp_path) -> str:
    """A shared object that is not z3's: a C extension of Python's own, where one is a file."""
    import _ctypes

    return getattr(_ctypes, "__file__", None) or "libc.so.6"


@pytest.mark.parametrize("where", ["none", "broken", "foreign"])
def test_no_usable_library_is_a_checker_error(where, tmp_path, monkeypatch, run):
    """No library beside the package, a file there that is not a shared object, or one that is
    not z3's: every question is answered 'could not be decided', saying why, exit 1; no
    traceback, no exit from inside z3."""
    broken = tmp_path / "libz3.so"
    broken.write_bytes(b"not a shared object")
    found = {"none": [], "broken": [str(broken)], "foreign": [_foreign(tmp_path)]}[where]
    monkeypatch.setattr(libz3, "candidates", lambda: found)
    monkeypatch.setattr(libz3, "_LIBRARY", [])
    monkeypatch.setattr(solver, "_INTERPRETERS", {})
    with pytest.raises(CheckerError, match="z3's library"):
        libz3.context()
    monkeypatch.setattr(libz3, "_LIBRARY", [])
    r = run("prove", os.path.join(SPECS, "m8n8k32.yaml"), "--jobs", "1")
    assert r.code == 1 and "z3's library" in r.out and "Traceback" not in r.out + r.err


def test_a_proof_imports_no_z3_python_api():
    code = ("import sys; from checker.cli import main; "
            f"c = main(['prove', {os.path.join(SPECS, 'm16n8k16.yaml')!r}, '--jobs', '1', '--no-cache'], "
            "open(__import__('os').devnull, 'w')); print(c, 'z3' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.stdout.split() == ["0", "False"], proc.stderr
