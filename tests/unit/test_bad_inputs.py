"""Every malformed or hostile spec gets a located message and the right exit code, in bounded
time and memory, never a traceback."""
import glob
import json
import os
import subprocess
import sys

import pytest

from conftest import CASES, ROOT, expectations

BAD = sorted(glob.glob(os.path.join(CASES, "bad", "*", "*.yaml")))


@pytest.fixture(scope="module")
def outcomes():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "unit", "bad_driver.py"), *BAD],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {r["path"]: r for r in json.loads(proc.stdout)}


def test_corpus_is_large_enough():
    assert len(BAD) >= 40


@pytest.mark.parametrize("path", BAD, ids=[os.path.basename(os.path.dirname(p)) for p in BAD])
def test_bad_input(outcomes, path):
    r = outcomes[path]
    exp = expectations(path)
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


def test_oversized_file_is_refused(tmp_path, run):
    spec = tmp_path / "m8n8k32.yaml"
    spec.write_text("notes: '" + "x" * (300 * 1024) + "'\n")
    r = run("prove", str(spec))
    assert r.code == 3 and "larger than" in r.out and f"{spec}:1:1:" in r.out
