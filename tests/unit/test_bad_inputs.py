"""Every malformed or hostile spec gets a located message and the right exit code, in bounded
time and memory, never a traceback."""
import glob
import json
import os
import subprocess
import sys

import pytest

from conftest import CASES, ROOT, expectations

def _made(folder: str) -> list:
    """`# expect-make: KIND TARGET NAME` lines: entries git cannot hold (a symlink to a device, a
    FIFO), made by the test in a copy of the case's folder. KIND: symlink (to TARGET) or fifo."""
    if not os.path.exists(os.path.join(folder, "EXPECT")):
        return []
    return [line.split() for line in expectations(os.path.join(folder, "EXPECT")).get("expect-make", [])]


_FOLDERS = sorted(glob.glob(os.path.join(CASES, "bad", "*", "")))
MADE = sorted(os.path.basename(os.path.dirname(f)) for f in _FOLDERS if _made(f))
BAD = sorted(p for p in glob.glob(os.path.join(CASES, "bad", "*", "*.yaml"))
             if os.path.basename(os.path.dirname(p)) not in MADE)


def _make(name: str, where) -> str:
    """The case `name` materialised under `where`: its files copied, its entries made; the path to prove."""
    import shutil

    src = os.path.join(CASES, "bad", name)
    dst = os.path.join(str(where), name)
    shutil.copytree(src, dst)
    made = _made(src)
    for kind, target, entry in made:
        if kind == "symlink":
            os.symlink(target, os.path.join(dst, entry))
        elif kind == "fifo":
            os.mkfifo(os.path.join(dst, entry))
        else:
            raise AssertionError(f"{name}: unknown expect-make kind {kind}")
    real = sorted(n for n in os.listdir(src) if n.endswith(".yaml"))
    return os.path.join(dst, real[0] if real else made[0][2])


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    made = {name: _make(name, tmp_path_factory.mktemp("made")) for name in MADE}
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "unit", "bad_driver.py"), *BAD,
                           *made.values()], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    by_path = {r["path"]: r for r in json.loads(proc.stdout)}
    by_path.update({name: by_path[path] | {"path": path} for name, path in made.items()})
    return by_path


def test_corpus_is_large_enough():
    assert len(BAD) + len(MADE) >= 40 and len(MADE) >= 3
    # the threat model counts the cases (one folder each, the dumps' included); it said 92 of 96
    with open(os.path.join(ROOT, "docs", "threat-model.md"), encoding="utf-8") as fh:
        assert f"`tests/cases/bad/` holds {len(_FOLDERS)} malformed or hostile inputs" in fh.read()


@pytest.mark.parametrize("name", MADE)
def test_bad_file_kind(outcomes, name):
    """What git cannot hold, made for the test: a spec that is a link to /dev/zero, a FIFO, a
    relations file whose neighbour is one; refused before any byte is read, located."""
    _check(outcomes[name], os.path.join(CASES, "bad", name, "EXPECT"), outcomes[name]["path"])


@pytest.mark.parametrize("path", BAD, ids=[os.path.basename(os.path.dirname(p)) for p in BAD])
def test_bad_input(outcomes, path):
    _check(outcomes[path], path, path)


def _check(r, case: str, path: str):
    exp = expectations(case)
    if "expect-in" in exp:  # the message is located in another file of the case's folder
        path = os.path.join(os.path.dirname(path), exp["expect-in"][0])
    assert r["escaped"] is None, r["escaped"]
    assert "Traceback" not in r["out"] + r["err"]
    assert r["code"] == int(exp["expect-exit"][0]), r["out"] + r["err"]
    text = r["out"] + r["err"]
    assert exp["expect-error"][0] in text, text
    rel = os.path.relpath(path, ROOT)
    located = [ln for ln in text.splitlines() if exp["expect-error"][0] in ln]
    assert any(ln.startswith(path + ":") or ln.startswith(rel + ":") for ln in located), located
    if "expect-at" in exp:
        assert any(ln.startswith(f"{path}:{exp['expect-at'][0]}:") for ln in located), located
    assert r["seconds"] < 10
    # nothing of the input is echoed whole: a message line is the location, a short quote, a hint
    assert all(len(ln) <= len(path) + 400 for ln in text.splitlines()), max(map(len, text.splitlines()))


def test_oversized_file_is_refused(tmp_path, run):
    spec = tmp_path / "m8n8k32.yaml"
    spec.write_text("notes: '" + "x" * (300 * 1024) + "'\n")
    r = run("prove", str(spec))
    assert r.code == 3 and "larger than" in r.out and f"{spec}:1:1:" in r.out


def test_no_read_is_unbounded_with_the_cache_on(tmp_path):
    """The cache key hashes every input (and, for a relations file, every spec beside it) before
    anything is loaded: those reads are bounded too. A folder with a spec that is a link to
    /dev/zero, a FIFO and a relations file beside them is answered, located, within seconds."""
    specs = tmp_path / "specs"
    specs.mkdir()
    os.symlink("/dev/zero", specs / "m8n8k32.yaml")
    os.mkfifo(specs / "m8n8k16.yaml")
    (specs / "relations.yaml").write_text(
        open(os.path.join(CASES, "bad", "relations-neighbour-dev-zero", "relations.yaml")).read())
    os.symlink("/dev/zero", specs / "m16n8k16.yaml")
    env = dict(os.environ, CHECKER_NO_CACHE="0", CHECKER_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-m", "checker", "prove", str(specs)], capture_output=True, text=True,
                          timeout=60, cwd=ROOT, env=env)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    for name, kind in (("m8n8k32.yaml", "a character device"), ("m8n8k16.yaml", "a FIFO"),
                       ("m16n8k16.yaml", "a character device")):
        assert f"{specs / name}:1:1: error: not a regular file: it is {kind}" in proc.stdout, proc.stdout


def test_diff_base_reads_history_bounded(tmp_path):
    """`checker diff --base REV` reads each file from git history with a bound (its size asked
    first, git killed past it) and as bytes: a version that is not UTF-8, or too large, is a
    located error naming REV:path, never a crash."""
    import shutil

    if shutil.which("git") is None:
        pytest.skip("no git")
    repo = tmp_path / "repo"
    (repo / "specs").mkdir(parents=True)
    (repo / "specs" / "m8n8k32.yaml").write_bytes(b"schema: x\nnotes: \"\xff\xfe\"\n")
    (repo / "specs" / "m8n8k16.yaml").write_text("notes: " + "x" * (300 * 1024) + "\n")
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "old"]):
        subprocess.run(git + args, cwd=repo, check=True, capture_output=True)
    for name in ("m8n8k32.yaml", "m8n8k16.yaml"):
        shutil.copy(os.path.join(ROOT, "specs", name), repo / "specs" / name)
    proc = subprocess.run([sys.executable, "-m", "checker", "diff", "--base", "HEAD", "specs"], cwd=repo,
                          capture_output=True, text=True, timeout=120)
    text = proc.stdout + proc.stderr
    # the old versions do not load, the new ones prove: an edit that mends a broken spec passes the
    # gate, and the old versions' errors are listed
    assert "Traceback" not in text and proc.returncode == 0, text
    assert "HEAD:specs/m8n8k32.yaml:2:9: error: file is not UTF-8 text" in text, text
    assert "HEAD:specs/m8n8k16.yaml:1:1: error: file is larger than 262144 bytes" in text, text


def test_run_bounded_kills_the_command_past_its_limit():
    from checker.bounded import GitError, run_bounded

    with pytest.raises(GitError, match="larger than 1000 bytes"):
        run_bounded([sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('x' * 65536)"], ROOT, 1000, 30)
    with pytest.raises(GitError, match="did not finish within 0.5 s"):
        run_bounded([sys.executable, "-c", "import time; time.sleep(30)"], ROOT, 1000, 0.5)
    assert run_bounded([sys.executable, "-c", "print('ok')"], ROOT, 1000, 30) == b"ok\n"
