"""The Python API (docs/api.md), used as a new user would: a scratch project in a temporary folder,
a fresh interpreter that knows only `import checker`, and every answer checked against what the
command line says of the same spec (`checker table --format json`, `checker prove --format json`,
`checker export`)."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, SPECS

import checker

SCRIPT = r'''
import json, sys
import checker
heavy = sorted(m for m in ("z3", "lark", "yaml", "numpy", "jsonschema") if m in sys.modules)

spec = checker.load("m16n8k256.yaml")
a = spec.fragment("A.b1")
printed = checker.load("m16n8k256.yaml", as_printed=True).fragment("A.b1")
rows, cols = a.to_numpy()
try:
    spec.fragment("Z.z")
    missing = None
except checker.LayoutError as exc:
    missing = str(exc)
proof = checker.prove("m16n8k256.yaml")
try:
    printed.compare(a)
    refused = None
except checker.LayoutError as exc:
    refused = str(exc)
injective = next(r for r in proof.errata if r.property == "injective")
json.dump({
    "heavy_at_import": heavy,
    "version": checker.__version__,
    "repr": repr(a), "spec_repr": repr(spec), "ids": list(spec.ids),
    "cells": [[t, i, *a.cell(t, i)] for t in range(a.threads) for i in range(a.elements)],
    "holders": {f"{r},{c}": a.holders(r, c) for r in range(a.rows) for c in range(a.cols)},
    "numpy": [rows.tolist(), cols.tolist()],
    "printed": {"0,96": printed.cell(0, 96), "3,32": printed.cell(3, 32), "holders 8,128": printed.holders(8, 128),
                "holders 8,0": printed.holders(8, 0), "equal": printed == a, "repr": repr(printed)},
    "missing": missing,
    "proof": {"ok": proof.ok, "exit": proof.exit_code, "summary": proof.summary, "repr": repr(proof),
              "results": [[r.fragment, r.property, r.verdict, r.erratum] for r in proof],
              "injective": injective.counterexample},
    "cute": a.to_cute(),
    "compare": {
        # CuTe's current SM80_16x8x256 A.b1 trait (cutlass, after PR #1856), and the one before it
        "current": a.compare("((4,8),(32,2,2)):((512,1),(16,8,2048))").equal,
        "old": a.compare("(32,(8,4,2,2)):(64,(64,16,8,2048))").summary(),
        "itself": a.compare(a).equal,
        "function": a.compare(lambda t, i: (a.cell(t, i)[0], 255 - a.cell(t, i)[1])).to_json(),
    },
    "compare_printed": refused,
}, sys.stdout)
'''


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A user's own folder: a copy of one spec and a script that imports the installed package."""
    folder = tmp_path_factory.mktemp("scratch")
    shutil.copy(os.path.join(SPECS, "m16n8k256.yaml"), folder / "m16n8k256.yaml")
    (folder / "use_it.py").write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "use_it.py"], cwd=folder, capture_output=True, text=True, timeout=300,
                          env=dict(env, CHECKER_NO_CACHE="1"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return folder, json.loads(proc.stdout)


def _cli(folder, *argv) -> str:
    proc = subprocess.run([sys.executable, "-m", "checker", *argv], cwd=folder, capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, CHECKER_NO_CACHE="1"))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_import_checker_is_cheap_and_versioned(scratch):
    _, got = scratch
    assert got["heavy_at_import"] == []
    assert got["version"] == checker.__version__
    from importlib.metadata import version

    assert checker.__version__ == version("ptx-fragment-checker")


def test_cell_and_holders_agree_with_checker_table(scratch):
    folder, got = scratch
    (table,) = json.loads(_cli(folder, "table", "m16n8k256.yaml", "--fragment", "A.b1", "--format", "json"))
    assert got["cells"] == table["entries"]
    assert len(got["cells"]) == 32 * 128
    # every cell has exactly the holder the table gives it: the API's inverse is the table's
    want = {}
    for t, i, r, c in table["entries"]:
        want.setdefault(f"{r},{c}", []).append([t, i])
    assert got["holders"] == want and len(want) == 16 * 256
    rows, cols = got["numpy"]
    assert [[t, i, rows[t][i], cols[t][i]] for t in range(32) for i in range(128)] == table["entries"]


def test_as_printed_is_the_documents_text(scratch):
    """The printed col formula of m16n8k256 A.b1 sends lane 0 a96 and lane 3 a32 to one cell and
    leaves A[8][0] to no lane (the erratum `checker prove` confirms); the reading does not."""
    _, got = scratch
    p = got["printed"]
    assert p["0,96"] == p["3,32"] == [8, 128]
    assert p["holders 8,128"] == [[0, 96], [3, 32]] and p["holders 8,0"] == []
    assert p["equal"] is False and "as printed" in p["repr"]
    cells = {(t, i): (r, c) for t, i, r, c in got["cells"]}
    assert cells[(3, 32)] != (8, 128) and got["holders"]["8,0"] == [[0, 32]]


def test_prove_gives_the_verdicts_of_checker_prove(scratch):
    folder, got = scratch
    cli = json.loads(_cli(folder, "prove", "m16n8k256.yaml", "--format", "json"))
    proof = got["proof"]
    assert proof["ok"] is True and proof["exit"] == 0
    assert proof["results"] == [[r["fragment"], r["property"], r["verdict"], r["erratum"]] for r in cli["results"]]
    assert {k: proof["summary"][k] for k in cli["summary"] if k in proof["summary"]} == \
        {k: v for k, v in cli["summary"].items() if k in proof["summary"]}
    assert proof["summary"]["errata_confirmed"] == 2 and proof["summary"]["refuted"] == 0
    assert proof["injective"]["lanes"] == [0, 3] and proof["injective"]["cell"] == [8, 128]
    assert "2 errata confirmed" in proof["repr"]


def test_export_is_the_commands(scratch):
    folder, got = scratch
    cli = _cli(folder, "export", "m16n8k256.yaml", "--fragment", "A.b1", "--to", "cute")
    body = [ln for ln in got["cute"].splitlines() if "generated by" not in ln]
    assert body == [ln for ln in cli.splitlines() if "generated by" not in ln]
    assert "checker.load('m16n8k256.yaml').fragment('A.b1').to_cute()" in got["cute"]


def test_repr_is_short_and_errors_name_what_exists(scratch):
    _, got = scratch
    assert got["repr"] == "<Layout m16n8k256 A.b1: 32 threads x 128 elements -> A 16x256 (.b1)>"
    assert got["spec_repr"] == "<Spec m16n8k256 (m16n8k256.yaml): A.b1, B.b1, C.s32>"
    assert got["ids"] == ["A.b1", "B.b1", "C.s32"]
    assert "has no fragment 'Z.z'. It has A.b1, B.b1, C.s32." in got["missing"]


def test_computations_figures_sparse_and_unparsable_print():
    m8 = checker.load(os.path.join(SPECS, "m8n8k4.yaml")).fragment("C.f16")
    assert m8.holders(0, 0) == [(0, 0), (4, 0), (8, 0), (12, 0)]  # one per MMA computation
    assert len(m8.computations) == 4 and m8.computations[0] == (0, 1, 2, 3, 16, 17, 18, 19)
    spec = checker.load(os.path.join(SPECS, "m16n8k16.yaml"))
    assert spec.figures_only == ("B.sp.tf32",)
    with pytest.raises(checker.LayoutError, match="only as a figure"):
        spec.fragment("B.sp.tf32")
    sp = spec.fragment("A.sp.f16")
    assert sp.sparse and sp.col_range(0, 0)[1] - sp.col_range(0, 0)[0] + 1 == 4  # 2:4, one chunk
    with pytest.raises(checker.LayoutError, match="not a sparse A"):
        spec.fragment("A.f16").col_range(0, 0)
    bad = checker.load(os.path.join(SPECS, "m16n8k16.yaml"), as_printed=True).fragment("A.f64")
    assert "does not parse" in repr(bad)
    with pytest.raises(checker.LayoutError, match=r"m16n8k16.yaml:50:44"):
        bad.cell(0, 0)
    with pytest.raises(checker.LayoutError, match="thread 0..31"):
        spec.fragment("A.f16").cell(32, 0)
    with pytest.raises(checker.UsageError, match="no such file"):  # docs/api.md's Errors: a bad argument
        checker.load(os.path.join(SPECS, "no-such.yaml"))
    assert issubclass(checker.LayoutError, checker.CheckerError)
    # the spec's errata: every one `checker errata` lists for the file
    assert len(spec.errata) == 14 and {e.kind for e in spec.errata} == {"contradiction", "judgment"}


def test_arguments_of_the_wrong_type_raise_the_packages_errors():
    """Each of these raised a bare TypeError or AttributeError from inside the package (or, for
    load(None), looked for a file named "None"; holders(9.5, 130) answered []); each is now a
    checker.CheckerError that says what the call takes."""
    import numpy as np

    from checker.compare import compare_layout

    spec = checker.load(os.path.join(SPECS, "m16n8k256.yaml"))
    a = spec.fragment("A.b1")
    wg = checker.load(os.path.join(SPECS, "m64nNk16.yaml"))
    k4 = checker.load(os.path.join(SPECS, "m8n8k4.yaml")).fragment("C.f16")
    for call, error, words in ((lambda: checker.load(None), checker.UsageError, "takes a path"),
                               (lambda: checker.load(3), checker.UsageError, "found int 3"),
                               (lambda: checker.load(os.path.join(SPECS, "m16n8k256.yaml"), as_printed="no"),
                                checker.UsageError, "as_printed is True or False, found str 'no'"),
                               (lambda: spec.fragment(3), checker.UsageError, r"an id as text \(one of A.b1, B.b1, C.s32\)"),
                               (lambda: spec.fragment("A.b1", N=64), checker.LayoutError, "A.b1 takes no N"),
                               (lambda: spec.fragment("a.b1"), checker.LayoutError, r"Did you mean fragment\('A.b1'\)"),
                               (lambda: a.holders("9", 130), checker.LayoutError, "row takes 0..15"),
                               (lambda: a.holders(9.5, 130), checker.LayoutError, "row takes 0..15"),
                               (lambda: a.cell(True, 98), checker.LayoutError, "thread 0..31"),
                               (lambda: a.grid_text(band="x"), checker.UsageError, "number of columns"),
                               (lambda: a.compare(5), checker.UsageError, "a CuTe layout as text, a Layout or a function"),
                               (lambda: checker.prove(3), checker.UsageError, "a path or a list of paths"),
                               (lambda: checker.prove([]), checker.UsageError, "no path"),
                               # the README pointed users here with a Layout: AttributeError inside
                               (lambda: compare_layout(a, a.cell), checker.UsageError, "its own .compare"),
                               # a path that does not exist is a bad argument, as checker.prove says it
                               (lambda: checker.load("no/such.yaml"), checker.UsageError, "no such file: no/such.yaml"),
                               # N=64.0 was taken for 64; N="64" was refused naming fragment('D.float', N=64)
                               (lambda: wg.fragment("D.float", N=64.0), checker.UsageError, "takes an integer, found float"),
                               (lambda: wg.fragment("D.float", N="64"), checker.UsageError, "takes an integer, found str"),
                               # IndexError, TypeError, or (0, -1) computations 4 and 3 read in silence
                               *((lambda bad=bad: k4.compare(k4, computation=bad), checker.UsageError,
                                  r'computation= takes None \(the lane\), "all" or 1..4 for C.f16')
                                 for bad in (5, 0, -1, "ALL", "2", 2.0, True)),
                               *((lambda bad=bad: k4.to_cute(computation=bad), checker.UsageError,
                                  "--computation takes 1..4 for C.f16") for bad in (5, "2", 2.0, True)),
                               (lambda: a.compare(a, computation=2), checker.UsageError, "held by the whole warp")):
        with pytest.raises(error, match=words):
            call()
    rows, cols = a.to_numpy()  # numpy's integers are integers
    assert a.holders(rows[4, 98], cols[4, 98]) == [(4, 98)] and a.cell(np.int64(4), np.int32(98)) == (9, 130)


def test_grid_text_draws_the_printed_hole():
    printed = checker.load(os.path.join(SPECS, "m16n8k256.yaml"), as_printed=True).fragment("A.b1")
    lines = printed.grid_text(band=8).splitlines()
    assert lines[1] == "columns 0..7 of 256"
    row8 = next(ln for ln in lines[3:] if ln.split()[0] == "8")
    assert row8.split()[1:] == ["."] * 8  # A[8][0..7]: no lane, as printed


def test_every_public_name_is_documented():
    doc = open(os.path.join(ROOT, "docs", "api.md"), encoding="utf-8").read()
    for name in checker.__all__:
        obj = getattr(checker, name)
        if name != "__version__":
            assert obj.__doc__, name
        assert f"`{name}" in doc or f"checker.{name}" in doc, name
    for cls in (checker.Layout, checker.Spec, checker.Proof):
        for attr, value in vars(cls).items():
            if not attr.startswith("_"):
                assert getattr(value, "__doc__", None) or isinstance(value, property) and value.fget.__doc__, attr
                assert f".{attr}" in doc, f"{cls.__name__}.{attr} is not in docs/api.md"


def test_compare_proves_and_refutes_user_layouts(scratch):
    _, got = scratch
    c = got["compare"]
    assert c["itself"] is True
    assert "differs from the spec" in c["old"] and "the first: thread" in c["old"]
    assert c["current"] is True
    fn = c["function"]  # every column mirrored: no point is where the spec puts it
    assert fn["verdict"] == "differs" and fn["points"] == fn["differing"] == 32 * 128
    assert fn["difference"]["thread"] == 0 and fn["difference"]["i"] == 0
    assert "as printed is not the proved layout" in got["compare_printed"]


def test_a_layout_compared_with_a_layout_is_compared_over_both_domains():
    """C.float "equal" to A.f16 (128 points, 0 differing): the other Layout was asked as a function
    over this one's domain only, where A.f16's a0..a3 are C.float's c0..c3; the other way round a
    SpecError located in the checker's own source. Each is now a table of the other's entries, as
    `checker compare --table` reads one."""
    s = checker.load(os.path.join(SPECS, "m16n8k16.yaml"))
    c, a = s.fragment("C.float"), s.fragment("A.f16")
    for one, other, first in ((c, a, "thread 0 c4: the spec has no such element, the candidate gives C[0][8]"),
                              (a, c, "thread 0 a4: the spec puts it at A[0][8], the candidate holds no such element")):
        r = one.compare(other)
        assert (r.equal, r.points, r.differing) == (False, 256, 128), r.summary()
        assert first in r.summary()
    assert a.compare(a).equal and c.compare(c).equal


def test_m8n8k4_layouts_compare_by_the_lane_as_the_command_does():
    """A layout compared with itself was refuted (128 of 256 points), the API numbering threads by
    computation ("all") where `cell` and `checker compare` number them by the lane; a numbering
    that would prove a differing candidate equal is now named, as the command names it."""
    k = checker.load(os.path.join(SPECS, "m8n8k4.yaml")).fragment("C.f16")
    assert k.compare(k).equal and k.compare(lambda t, i: k.cell(t, i)).equal
    r = k.compare(k, computation="all")
    assert not r.equal and r.equal_with == (None,)
    assert r.summary().endswith("; equal with computation=None (the thread index is the lane)")
    assert r.to_json()["equal_with"] == [None]


def test_an_export_is_of_the_map_loaded_not_of_the_file_as_it_is_later(tmp_path, monkeypatch):
    """to_cute() re-read the spec by its path: after a chdir it could not read the file, and after
    an edit it exported (or refused) what the file said then, not the map cell() answers from."""
    shutil.copy(os.path.join(SPECS, "m16n8k256.yaml"), tmp_path / "m16n8k256.yaml")
    monkeypatch.chdir(tmp_path)
    b = checker.load("m16n8k256.yaml").fragment("B.b1")
    before = b.to_cute()
    mutant = os.path.join(ROOT, "tests", "cases", "mutants", "injective-mask", "m16n8k256.yaml")
    shutil.copy(mutant, tmp_path / "m16n8k256.yaml")  # B.b1 not injective there
    monkeypatch.chdir(ROOT)
    assert b.to_cute() == before and b.cell(1, 0) == checker.load(os.path.join(SPECS, "m16n8k256.yaml")).fragment(
        "B.b1").cell(1, 0)


def test_a_proof_s_results_are_what_it_proved():
    """`ok`, `summary` and `failures` are read off `.results` when asked: a list let a caller's
    clear() make a failing proof ok, and an append make `failures` raise AttributeError."""
    p = checker.prove(os.path.join(SPECS, "m8n8k32.yaml"), jobs=1)
    assert isinstance(p.results, tuple) and isinstance(p.files, tuple) and p.ok
    with pytest.raises(AttributeError):
        p.results.append(1)
    assert len(p) == len(p.results) and list(p) == list(p.results)
