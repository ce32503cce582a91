"""`checker diff` on hostile inputs: a git history whose tree names `..` is refused before anything
is written; OLD is read with the spec bound, never copied whole; a signalled diff leaves no
temporary folder behind."""
import binascii
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid

import pytest

from conftest import ROOT, SPECS

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="no git")
GIT = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false"]


def _git(repo, *args, data=None) -> str:
    return subprocess.run(GIT + list(args), cwd=repo, input=data, check=True,
                          capture_output=True).stdout.decode().strip()


def _tree(repo, entries) -> str:
    """A tree object as written, names unchecked (what `git mktree` would refuse)."""
    data = b"".join(m.encode() + b" " + n.encode() + b"\0" + binascii.unhexlify(s) for m, n, s in entries)
    return _git(repo, "hash-object", "-w", "-t", "tree", "--literally", "--stdin", data=data)


def _env(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT, TMPDIR=str(tmp_path / "tmp"))
    os.makedirs(env["TMPDIR"], exist_ok=True)
    return env


def test_a_tree_entry_named_dotdot_is_refused_and_nothing_is_written_outside(tmp_path):
    repo = tmp_path / "repo"
    (repo / "specs").mkdir(parents=True)
    shutil.copy(os.path.join(SPECS, "m8n8k32.yaml"), repo / "specs")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    # specs/../../../../<victim>/PWNED.yaml: from <tmp>/checker-diff-X/<rev>/specs/ up to <tmp>
    victim = f"checker-test-victim-{uuid.uuid4().hex}"
    blob = _git(repo, "hash-object", "-w", "--stdin", data=b"# written by checker diff --base\n")
    t = _tree(repo, [("40000", victim, _tree(repo, [("100644", "PWNED.yaml", blob)]))])
    for _ in range(3):
        t = _tree(repo, [("40000", "..", t)])
    spec = _git(repo, "rev-parse", "HEAD:specs/m8n8k32.yaml")
    root = _tree(repo, [("40000", "specs", _tree(repo, [("40000", "..", t), ("100644", "m8n8k32.yaml", spec)]))])
    _git(repo, "update-ref", "refs/heads/evil", _git(repo, "commit-tree", root, "-p", "HEAD", "-m", "evil"))
    env = _env(tmp_path)
    planted = tmp_path / "tmp" / victim
    try:
        proc = subprocess.run([sys.executable, "-m", "checker", "diff", "--base", "evil"], cwd=repo, env=env,
                              capture_output=True, text=True, timeout=120)
        assert not planted.exists(), "diff --base wrote outside its temporary folder"
    finally:
        shutil.rmtree(planted, ignore_errors=True)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 3 and "Traceback" not in text, text
    assert (f"evil:specs/../../../../{victim}/PWNED.yaml:1:1: error: git lists a path with an empty, '.' or "
            "'..' component; the revision is refused") in text, text
    assert os.listdir(tmp_path / "tmp") == []


@pytest.mark.parametrize("name", ["", "..", "a/../b.yaml", "./a.yaml", "a//b.yaml", "/etc/x.yaml", "a\nb.yaml",
                                  "a\0b", "a/.", "x" * 5000])
def test_unsafe_names(name):
    from checker.diff.git import _unsafe

    assert _unsafe(name) is not None


@pytest.mark.parametrize("name", ["specs/m8n8k32.yaml", "a..b.yaml", "...yaml", ".hidden/x.yaml", "é/ü.yaml"])
def test_safe_names(name):
    from checker.diff.git import _unsafe

    assert _unsafe(name) is None


def test_a_huge_old_file_is_not_copied(tmp_path):
    """A sparse 1 GiB OLD (no disk used) is refused by its size, located, and never copied: the
    command runs with a 64 MiB limit on the files it writes."""
    old = tmp_path / "old.yaml"
    with open(old, "wb") as fh:
        fh.truncate(1 << 30)
    code = ("import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
            "resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20)); "
            "from checker.cli import entry; sys.exit(entry())")
    proc = subprocess.run([sys.executable, "-c", code, "diff", str(old), os.path.join(SPECS, "m8n8k32.yaml")],
                          cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Traceback" not in text, text  # an old version that does not load fails nothing
    assert f"{old}:1:1: error: file is larger than 262144 bytes" in text, text
    assert os.listdir(tmp_path / "tmp") == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signalled_diff_leaves_no_temporary_folder(tmp_path, sig):
    """Signalled mid-proof, and (a few times) the moment anything appears in its TMPDIR: the
    file tempfile writes and removes there on its first use, just before it makes the folder, so
    the signal lands while the folder is being made (that once left tempfile's file behind, or a
    folder made but not yet recorded: the signals now wait until it is recorded)."""
    env = _env(tmp_path)
    for wanted in ("", "", "", "", "checker-diff-"):
        proc = subprocess.Popen([sys.executable, "-m", "checker", "diff", os.path.join(SPECS, "m16n8k16.yaml"),
                                 os.path.join(SPECS, "m16n8k16.yaml")], cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while (not any(n.startswith(wanted) for n in os.listdir(tmp_path / "tmp"))
                   and proc.poll() is None and time.monotonic() < deadline):
                time.sleep(0.0005)
            assert proc.poll() is None, "the diff ended before it was signalled"
            if wanted:
                time.sleep(0.3)  # mid-proof
            proc.send_signal(sig)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            err = proc.stderr.read()
            proc.stderr.close()
        assert proc.returncode == 128 + sig, err
        assert os.listdir(tmp_path / "tmp") == []
