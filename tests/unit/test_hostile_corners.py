"""Corners of hostile input found by an audit: a folder nested a thousand deep in a checkout or in
git history, a Triton bases file whose `out_dims` or `shape` says something other than what its
bases are read as, a `same_as` neighbour that is no regular file, and a link planted in the folder
`probe --emit-ptx` writes. Each is a located message and its exit code, never a traceback, a
wrong verdict, a neighbour passed over in silence or a write through a link."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, SPECS

DEEP = 1100  # folders: past Python's recursion limit of 1000


def _nest(top, depth: int = DEEP) -> str:
    """A chain of `depth` folders named `a` under `top` (made one level at a time: the path is
    made relative, so no single call takes a path longer than the system allows)."""
    here = os.getcwd()
    try:
        os.chdir(top)
        for _ in range(depth):
            os.mkdir("a")
            os.chdir("a")
        return os.getcwd()
    finally:
        os.chdir(here)


def _unnest(top) -> None:
    """Remove the chain _nest made, bottom up, one level at a time (shutil.rmtree, pytest's clean-up
    of old temporary folders included, recurses per folder too)."""
    here = os.getcwd()
    try:
        os.chdir(top)
        depth = 0
        while os.path.isdir("a"):
            os.chdir("a")
            depth += 1
        for name in os.listdir("."):
            os.remove(name)
        for _ in range(depth):
            os.chdir("..")
            os.rmdir("a")
    finally:
        os.chdir(here)


@pytest.fixture
def nests():
    made = []
    yield made
    for top in made:
        _unnest(top)


def test_a_folder_nested_a_thousand_deep_is_walked_not_a_traceback(run, tmp_path, nests):
    """os.walk recursed once per folder: validate, prove, crosscheck --dumps, conformance
    --references, mutate, report and errata on a folder holding such a chain raised RecursionError."""
    specs = tmp_path / "specs"
    specs.mkdir()
    shutil.copy(os.path.join(SPECS, "m8n8k32.yaml"), specs)
    nests.append(specs)
    _nest(specs)
    r = run("validate", str(specs))
    assert r.code == 0 and f"{specs / 'm8n8k32.yaml'}: ok" in r.out, r.out + r.err
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    nests.append(dumps)
    _nest(dumps)
    r = run("crosscheck", str(specs / "m8n8k32.yaml"), "--dumps", str(dumps))
    assert r.code == 2 and "no probe dump" in r.err, r.out + r.err


def test_files_walks_in_the_order_os_walk_did(tmp_path):
    from checker.files import under

    for d in ("b/y", "a", "c"):
        os.makedirs(tmp_path / d)
    for f in ("z.yaml", "a/2.yaml", "a/1.yaml", "b/x.yaml", "b/y/w.yaml", "c/v.txt"):
        (tmp_path / f).write_text("x: 1\n")
    os.symlink(tmp_path / "b", tmp_path / "link")  # a link to a folder: listed by os.walk, not entered
    os.symlink(tmp_path / "z.yaml", tmp_path / "l.yaml")
    want = []
    for root, dirs, names in os.walk(tmp_path):
        dirs.sort()
        want.extend(os.path.join(root, n) for n in sorted(names) if n.endswith(".yaml"))
    assert under([str(tmp_path)], (".yaml",)) == want
    assert want[0] == str(tmp_path / "l.yaml") and str(tmp_path / "b" / "y" / "w.yaml") in want


@pytest.mark.skipif(shutil.which("git") is None, reason="no git")
def test_diff_base_refuses_a_history_path_a_thousand_folders_deep(tmp_path, nests):
    """Each old version's folders were made by os.makedirs, which recurses per folder: a path
    1,100 folders deep in the history ended `diff --base` with RecursionError."""
    repo = tmp_path / "repo"
    (repo / "specs").mkdir(parents=True)
    shutil.copy(os.path.join(SPECS, "m8n8k32.yaml"), repo / "specs")
    nests.append(repo / "specs")
    with open(os.path.join(_nest(repo / "specs"), "z.yaml"), "w") as fh:
        fh.write("x: 1\n")
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "deep"], ["rm", "-rq", "specs/a"],
                 ["commit", "-qm", "gone"]):
        subprocess.run(git + args, cwd=repo, check=True, capture_output=True)
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, "-m", "checker", "diff", "--base", "HEAD~1", "specs"], cwd=repo,
                          env=env, capture_output=True, text=True, timeout=120)
    text = proc.stdout + proc.stderr
    assert "Traceback" not in text and proc.returncode == 3, text
    assert "HEAD~1:specs/a/a/" in text and "git lists a path nested deeper than 64 folders" in text, text


def _bases(tmp_path, text: str) -> str:
    path = tmp_path / "bases.json"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("extra, said", [
    # the bases given as (col, row), as out_dims says: they were read as (row, col) all the same
    ('"out_dims": ["col", "row"]',
     'out_dims: the bases are read as (row, col), Triton\'s (dim0, dim1); found ["col", "row"]'),
    ('"out_dims": "whatever"', 'out_dims: the bases are read as (row, col)'),
    ('"shape": [8, 16]', "shape: [8, 16] is not C.float's [16, 8] (rows, cols)"),
    ('"shape": [1e9, 8]', "shape: expected [rows, cols], two positive integers, found [1000000000.0, 8]"),
])
def test_triton_out_dims_and_shape_say_how_the_bases_are_read(run, tmp_path, extra, said):
    bases = ('{"reg_bases": [[0, 1], [8, 0]], "lane_bases": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], '
             + extra + "}")
    path = _bases(tmp_path, bases)
    r = run("compare", os.path.join(SPECS, "m16n8k16.yaml"), "--fragment", "C.float", "--triton", path)
    assert r.code == 3, r.out + r.err
    col = bases.index(extra.split(":")[0]) + 1
    assert f"{path}:1:{col}: error: {said}" in r.out + r.err, r.out + r.err


def test_triton_out_dims_and_shape_as_export_writes_them_are_equal(run, tmp_path):
    spec = os.path.join(SPECS, "m16n8k16.yaml")
    bases = ('{"reg_bases": [[0, 1], [8, 0]], "lane_bases": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], '
             '"out_dims": ["dim0", "dim1"], "shape": [16, 8]}')
    r = run("compare", spec, "--fragment", "C.float", "--triton", _bases(tmp_path, bases))
    assert r.code == 0, r.out + r.err
    exported = run("export", spec, "--fragment", "C.float", "--to", "triton").out
    r = run("compare", spec, "--fragment", "C.float", "--triton", _bases(tmp_path, exported))
    assert r.code == 0, r.out + r.err


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "dangling"])
def test_a_same_as_neighbour_that_is_no_regular_file_is_located(run, tmp_path, kind):
    """m64nNk32.sp's D is the same as m64nNk32's: a FIFO, a link to /dev/zero or a dangling link
    named m64nNk32.yaml beside it was passed over as absent (exit 1, "no spec of shape m64nNk32 is
    loaded or beside"), where a relations file's neighbour like it is refused, located, exit 3."""
    shutil.copy(os.path.join(SPECS, "m64nNk32.sp.yaml"), tmp_path)
    shutil.copy(os.path.join(SPECS, "m16n8k32.yaml"), tmp_path)
    beside = tmp_path / "m64nNk32.yaml"
    {"fifo": lambda: os.mkfifo(beside), "dev-zero": lambda: os.symlink("/dev/zero", beside),
     "dangling": lambda: os.symlink(tmp_path / "missing.yaml", beside)}[kind]()
    r = run("prove", str(tmp_path / "m64nNk32.sp.yaml"))
    assert r.code == 3, r.out + r.err
    said = {"fifo": "not a regular file: it is a FIFO", "dev-zero": "not a regular file: it is a character device",
            "dangling": "cannot read file"}[kind]
    assert f"{beside}:1:1: error: {said}" in r.out, r.out


def test_emit_ptx_writes_through_no_link_in_its_folder(run, tmp_path):
    """`probe --emit-ptx DIR` names its files in DIR as `--synthetic` names its dumps, and DIR may be
    a folder of the checkout: a README.md planted there as a link to a file outside was written
    through (the dumps are opened with O_NOFOLLOW)."""
    out = tmp_path / "ptx"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("not the checker's\n")
    os.symlink(victim, out / "README.md")
    r = run("probe", os.path.join(SPECS, "m8n8k32.yaml"), "--emit-ptx", str(out))
    assert r.code == 2, r.out + r.err
    assert f"--emit-ptx {out / 'README.md'}: is a symbolic link, not a regular file" in r.err, r.err
    assert victim.read_text() == "not the checker's\n"


def test_a_python_candidate_without_code_of_its_own_is_located(run, tmp_path):
    # a builtin, a callable object and a functools.partial had no location: a bare "error: ..." line
    mod = tmp_path / "cands.py"
    mod.write_text("import functools\nclass C:\n    def __call__(self, t, i):\n        return 'x'\nobj = C()\n"
                   "def base(t, i, k):\n    return 1 // 0\npart = functools.partial(base, k=1)\n")
    spec = os.path.join(SPECS, "m8n8k32.yaml")
    import math

    home = getattr(math, "__file__", "--python math:gcd")  # a builtin: its module's file, or the name given
    for target, where in (("math:gcd", f"{home}:1:1"), (f"{mod}:obj", f"{mod}:3:1"), (f"{mod}:part", f"{mod}:7:1")):
        r = run("compare", spec, "--fragment", "A.i4", "--python", target)
        assert r.code == 3 and r.err.startswith(f"{where}: error: "), (target, r.err)


def test_diff_of_two_different_files_is_a_usage_error(run, tmp_path):
    m32, m16 = os.path.join(SPECS, "m8n8k32.yaml"), os.path.join(SPECS, "m8n8k16.yaml")
    r = run("diff", m32, m16)
    assert r.code == 2 and "diff compares two versions of one spec" in r.err and "rename" not in r.err + r.out
    r = run("diff", m32, os.path.join(SPECS, "relations.yaml"))
    assert r.code == 2 and "is a spec" in r.err and "a relations file" in r.err
    r = run("diff", m32, os.path.join(SPECS, "untranscribed.yaml"))
    assert r.code == 2 and "is no spec" in r.err
    # an old version whose shape was a slip is that version's listed error: the edit mending it passes
    old = tmp_path / "old" / "m8n8k32.yaml"
    old.parent.mkdir()
    with open(m32) as fh:
        old.write_text(fh.read().replace("shape: m8n8k32", "shape: m8n8k3"))
    r = run("diff", str(old), m32)
    assert r.code == 0 and "shape 'm8n8k3' does not match the file name" in r.out


def test_output_never_replaces_an_input_nor_lands_among_the_specs(run, tmp_path):
    shutil.copy(os.path.join(SPECS, "m8n8k32.yaml"), tmp_path)
    spec = str(tmp_path / "m8n8k32.yaml")
    before = open(spec).read()
    r = run("table", spec, "--fragment", "A.i4", "--output", spec)
    assert r.code == 2 and "is an input of this command" in r.err
    assert open(spec).read() == before
    r = run("prove", str(tmp_path), "--no-cache", "--output", str(tmp_path / "result.yaml"))
    assert r.code == 2 and "is a YAML file inside" in r.err and not (tmp_path / "result.yaml").exists()
    r = run("prove", str(tmp_path), "--no-cache", "--output", str(tmp_path / "result.json"), "--format", "json")
    assert r.code == 0 and (tmp_path / "result.json").exists()
