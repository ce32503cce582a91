"""Output paths and malformed dumps: an output that cannot be written is a usage error (exit 2) in one
line naming the path, whatever the command; a dump whose registers are not its variant's, or of a
variant the spec no longer describes, is a located error, never a traceback."""
import glob
import os

import pytest

from conftest import CASES, SPECS, expectations

SPEC = os.path.join(SPECS, "m8n8k32.yaml")


@pytest.fixture
def place(tmp_path):
    (tmp_path / "afile").write_text("x")
    (tmp_path / "folder").mkdir()
    return tmp_path


def _usage(r, path, what):
    assert r.code == 2, r.out + r.err
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.err, r.err
    assert path in lines[0] and what in lines[0], lines[0]


@pytest.mark.parametrize("argv, at, what", [
    (["prove", SPEC, "--output", "{t}/missing/out.json", "--format", "json"], "{t}/missing/out.json", "no such folder"),
    (["prove", SPEC, "--output", "{t}/folder"], "{t}/folder", "is a folder"),
    (["prove", SPEC, "--output", "{t}/afile/out.txt"], "{t}/afile/out.txt", "is not a folder"),
    (["prove", SPEC, "--dump-smt", "{t}/afile"], "{t}/afile", "is a file, not a folder"),
    (["prove", SPEC, "--dump-smt", "{t}/afile/sub"], "{t}/afile/sub", "cannot be made"),
    (["export", SPEC, "--fragment", "C.s32", "--to", "python", "--output", "{t}/missing/x.py"], "{t}/missing/x.py",
     "no such folder"),
    (["export", SPEC, "--fragment", "C.s32", "--to", "python", "--output", "{t}/folder"], "{t}/folder", "is a folder"),
    (["diff", SPEC, SPEC, "--output", "{t}/folder"], "{t}/folder", "is a folder"),
    (["diff", SPEC, SPEC, "--output", "{t}/missing/d.txt"], "{t}/missing/d.txt", "no such folder"),
    (["report", SPEC, "--out", "{t}/afile"], "{t}/afile", "is a file, not a folder"),
    (["report", SPEC, "--out", "{t}/afile/sub"], "{t}/afile/sub", "cannot be made"),
    (["probe", SPEC, "--synthetic", "--out", "{t}/afile"], "{t}/afile", "is a file, not a folder"),
    (["probe", SPEC, "--synthetic", "--out", "{t}/afile/sub"], "{t}/afile/sub", "cannot be made"),
], ids=lambda x: x if isinstance(x, str) else None)
def test_an_output_that_cannot_be_written_is_a_usage_error(run, place, argv, at, what):
    t = str(place)
    r = run(*[a.replace("{t}", t) for a in argv])
    _usage(r, at.replace("{t}", t), what)


def test_a_write_the_system_refuses_is_a_usage_error_too(run, tmp_path, monkeypatch):
    """Checked first, and the write itself reported the same way where the system refuses it even so."""
    from checker import outputs

    def refuse(path, mode="r", **kw):
        raise OSError(28, "No space left on device", path)

    monkeypatch.setattr(outputs, "open", refuse, raising=False)
    out = str(tmp_path / "x.py")
    r = run("export", SPEC, "--fragment", "C.s32", "--to", "python", "--output", out)
    _usage(r, out, "no space left on device")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_dump_folder_the_system_will_not_make_is_a_usage_error(run, tmp_path, monkeypatch, jobs):
    """`--dump-smt /proc/x` passed the check (its parent is a folder root may write) and failed at
    the first query: a traceback with one worker, "a worker process failed" and exit 1 with two."""
    import errno

    made = os.makedirs
    where = str(tmp_path / "smt")

    def refuse(path, *a, **kw):
        if os.path.abspath(path) == where:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        return made(path, *a, **kw)

    monkeypatch.setattr(os, "makedirs", refuse)
    r = run("prove", SPEC, "--dump-smt", where, "--no-cache", "--jobs", jobs)
    _usage(r, where, "cannot be made (no such file or directory)")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_dump_the_system_refuses_to_write_leaves_its_questions_undecided(run, tmp_path, monkeypatch, jobs):
    """The folder made, a query's file refused (a full disk): a traceback with one worker, "a
    worker process failed" with two. Now each question that wrote one is unknown (never a pass:
    exit 1), at its spec, saying which file the system refused and why."""
    from checker.smt import solver

    def refuse(path, mode="r", **kw):
        raise OSError(28, "No space left on device", path)

    monkeypatch.setattr(solver, "open", refuse, raising=False)
    where = str(tmp_path / "smt")
    r = run("prove", SPEC, "--dump-smt", where, "--no-cache", "--jobs", jobs)
    assert r.code == 1 and "Traceback" not in r.err + r.out and "worker process failed" not in r.err + r.out
    errors = [ln for ln in r.out.splitlines() if ": error: " in ln]
    refused = [ln for ln in errors if "--dump-smt" in ln]
    assert refused and all(f"could not be decided: --dump-smt {where}: cannot write {where}/" in ln
                           and ln.endswith("(no space left on device)") for ln in refused), refused
    assert all(" unknown: " in ln or "could not be decided" in ln for ln in errors)  # the rest read those


def test_outputs_that_can_be_written_are_written(run, tmp_path):
    out = tmp_path / "x.py"
    assert run("export", SPEC, "--fragment", "C.s32", "--to", "python", "--output", str(out)).code == 0
    assert "def row(" in out.read_text()
    r = run("diff", SPEC, SPEC, "--output", str(tmp_path / "d.txt"))
    assert r.code == 0 and (tmp_path / "d.txt").exists()


DUMP_CASES = sorted(glob.glob(os.path.join(CASES, "bad", "dump-*", "*.dump.json.gz")))


def test_there_are_dump_cases():
    assert len(DUMP_CASES) >= 3


@pytest.mark.parametrize("path", DUMP_CASES, ids=[os.path.basename(os.path.dirname(p)) for p in DUMP_CASES])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_malformed_or_stale_dump_is_a_located_error(run, path, fmt):
    exp = expectations(path)
    r = run("crosscheck", SPEC, "--dumps", os.path.dirname(path), "--format", fmt)
    text = r.out + r.err
    assert "Traceback" not in text
    assert r.code == int(exp["expect-exit"][0]), text
    assert exp["expect-error"][0] in text, text
    if fmt == "text":
        assert any(ln.startswith(path + ":1:1:") and exp["expect-error"][0] in ln for ln in text.splitlines()), text


def test_a_dump_of_a_shape_no_spec_describes_is_counted_not_checked(run, tmp_path):
    src = sorted(glob.glob(os.path.join(os.path.dirname(SPECS), "reports", "synthetic", "m8n8k32.*")))[0]
    good = glob.glob(os.path.join(os.path.dirname(SPECS), "reports", "synthetic", "m16n8k16.*"))[0]
    for p in (src, good):
        (tmp_path / os.path.basename(p)).write_bytes(open(p, "rb").read())
    r = run("crosscheck", SPEC, "--dumps", str(tmp_path))
    assert r.code == 0 and "1 of other specs" in r.out, r.out + r.err
