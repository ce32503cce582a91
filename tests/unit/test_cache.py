"""The prove cache: a hit replays exactly what proving gives, any input change is a miss, a bad
entry is a miss, unknown is never stored, and a hit needs neither z3 nor lark nor jsonschema."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, SPECS

from checker import cache
from checker.results import PROVED, UNKNOWN, Result


@pytest.fixture
def cached(monkeypatch, tmp_path):
    monkeypatch.delenv("CHECKER_NO_CACHE", raising=False)
    monkeypatch.setenv("CHECKER_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _untimed(text: str) -> str:
    text = re.sub(r'"(seconds|cross_check_seconds|time)": [0-9.e-]+', '"seconds": 0', text)
    text = re.sub(r'time="[0-9.]+"', 'time="0"', text)
    text = re.sub(r"\(\d+\.\d+ s.*\)\n", "(s)\n", text)
    return text.replace('"cached": true', '"cached": false')


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit"])
def test_a_hit_gives_what_proving_gives(run, cached, fmt):
    cold = run("prove", SPECS, "--format", fmt)
    warm = run("prove", SPECS, "--format", fmt)
    assert len(os.listdir(cached)) == 1
    assert cold.code == warm.code == 0
    assert _untimed(cold.out) == _untimed(warm.out)
    if fmt == "text":
        assert "from the cache" in warm.out and "from the cache" not in cold.out
    if fmt == "json":
        assert json.loads(warm.out)["summary"]["cached"] is True


def test_a_refuted_spec_is_replayed_with_its_counterexample(run, cached, tmp_path):
    spec = tmp_path / "m8n8k32.yaml"
    text = open(os.path.join(SPECS, "m8n8k32.yaml")).read()
    assert "col = (threadID_in_group * 8) + i " in text
    spec.write_text(text.replace("col = (threadID_in_group * 8) + i ", "col = (threadID_in_group * 8) + i + 1", 1))
    cold, warm = run("prove", str(spec)), run("prove", str(spec))
    assert cold.code == warm.code == 1
    assert _untimed(cold.out) == _untimed(warm.out) and "replay:" in warm.out


def test_any_change_of_input_or_option_is_a_miss(run, cached, tmp_path):
    specs = tmp_path / "specs"
    shutil.copytree(SPECS, specs)
    run("prove", str(specs))
    assert len(os.listdir(cached)) == 1
    run("prove", str(specs), "--no-cross-check")  # another option
    assert len(os.listdir(cached)) == 2
    rel = specs / "relations.yaml"
    run("prove", str(rel))
    # a spec beside the relations file is part of what the relations file proves
    m = specs / "m16n8k16.yaml"
    m.write_text(m.read_text() + "\n# a comment changes the bytes\n")
    r = run("prove", str(rel))
    assert "from the cache" not in r.out and len(os.listdir(cached)) == 4
    assert "from the cache" in run("prove", str(rel)).out


def test_no_cache_and_dump_smt_prove_again(run, cached, tmp_path):
    run("prove", os.path.join(SPECS, "m8n8k32.yaml"))
    assert "from the cache" not in run("prove", os.path.join(SPECS, "m8n8k32.yaml"), "--no-cache").out
    r = run("prove", os.path.join(SPECS, "m8n8k32.yaml"), "--dump-smt", str(tmp_path / "smt"))
    assert "from the cache" not in r.out and os.listdir(tmp_path / "smt")


@pytest.mark.parametrize("content", ["", "not json", '{"format": "x"}', "[1, 2]",
                                     '{"format": "ptx-fragment-checker/prove-cache/1", "key": "KEY", '
                                     '"results": [{"spec": "x", "verdict": "PROVED", "evil": 1}]}'])
def test_a_bad_or_forged_entry_is_a_miss(run, cached, content):
    path = os.path.join(SPECS, "m8n8k32.yaml")
    k = cache.key([path], {"cross_check": True})
    os.makedirs(cached)
    (cached / f"prove-{k}.json").write_text(content.replace("KEY", k))
    r = run("prove", path)
    assert r.code == 0 and "from the cache" not in r.out and "proved" in r.out
    assert "from the cache" in run("prove", path).out  # and the entry is rewritten


def test_unknown_is_never_stored(tmp_path):
    k = "0" * 64
    cache.store(str(tmp_path), k, [Result("s", "f", "covers", UNKNOWN)], [])
    assert not os.listdir(tmp_path)
    cache.store(str(tmp_path), k, [Result("s", "f", "covers", PROVED, detail={"x": (1, 2)})], [])
    assert cache.load(str(tmp_path), k)[0].verdict == PROVED


def test_old_entries_are_pruned(tmp_path):
    for n in range(cache.KEEP + 5):
        cache.store(str(tmp_path), f"{n:064x}", [Result("s", "f", "covers", PROVED)], [])
    assert len(os.listdir(tmp_path)) == cache.KEEP


def test_a_hit_imports_no_solver_parser_or_schema_library(cached):
    code = ("import sys, io; from checker.cli import main; o = [io.StringIO(), io.StringIO()]; "
            "a = main(['prove', 'specs/'], o[0], io.StringIO()); b = main(['prove', 'specs/'], o[1], io.StringIO()); "
            "print(a, b, *['from the cache' in x.getvalue() for x in o], "
            "sorted(m for m in ('z3', 'lark', 'jsonschema', 'numpy') if m in sys.modules))")
    env = dict(os.environ, CHECKER_CACHE_DIR=str(cached))
    first = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    second = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert first.stdout.split()[:4] == ["0", "0", "False", "True"], first.stdout + first.stderr  # proved, then hit
    assert second.stdout.strip() == "0 0 True True []", second.stdout + second.stderr


def test_an_input_the_cache_cannot_read_leaves_it_to_the_prover(run, cached, monkeypatch):
    def unreadable(h, path):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(cache, "_file", unreadable)
    r = run("prove", os.path.join(SPECS, "m8n8k32.yaml"))
    assert r.code == 0 and "proved" in r.out and "from the cache" not in r.out
    assert not os.path.exists(cached)  # nothing stored under a key it could not compute
