"""A property is one module: tests/cases/new_property/same_row_pairs.py, copied into a copy of
the package, is proved by both engines on every fragment, refuted where it fails with a located
message, described in SARIF and ordered in the mutation campaign, with no other file touched."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from conftest import CASES, ROOT, SPECS

from checker.properties import PROPERTIES, REGISTRY


def test_the_registry_is_ordered_and_named_once():
    assert PROPERTIES[0] == "fragment-shape" and len(set(PROPERTIES)) == len(PROPERTIES)
    assert [p.order for p in REGISTRY] == sorted(p.order for p in REGISTRY)
    assert all(p.meaning and p.kind in ("table", "point", "pair", "cell") for p in REGISTRY)


def _copy_with_the_new_property(tmp_path):
    shutil.copytree(os.path.join(ROOT, "checker"), tmp_path / "checker",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(os.path.join(CASES, "new_property", "same_row_pairs.py"), tmp_path / "checker" / "properties")
    return tmp_path


def _run(root, *args):
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run([sys.executable, "-m", "checker", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)


def test_a_new_property_is_one_module(tmp_path):
    root = _copy_with_the_new_property(tmp_path)
    spec = os.path.join(SPECS, "m16n8k16.yaml")
    r = _run(root, "prove", spec, "--format", "json", "--no-cache")
    assert r.returncode == 1, r.stderr  # B's pairs run down a column: refuted
    results = [x for x in json.loads(r.stdout)["results"] if x["property"] == "same-row-pairs"]
    verdicts = {(x["fragment"], x["verdict"]) for x in results if not x["erratum"]}
    assert ("A.f16", "PROVED") in verdicts and ("C.f16", "PROVED") in verdicts
    refuted = next(x for x in results if x["fragment"] == "B.f16")
    assert refuted["verdict"] == "REFUTED" and refuted["counterexample"]["lanes"] == [0]
    assert refuted["counterexample"]["elements"] == ["b0", "b1"]  # the smallest witness, from both engines
    assert refuted["location"].startswith(spec + ":")
    sarif = json.loads(_run(root, "prove", spec, "--format", "sarif", "--no-cache").stdout)
    rules = {rule["id"]: rule["shortDescription"]["text"] for rule in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["same-row-pairs"] == "Elements 2j and 2j+1 of a lane lie in one row"
    order = subprocess.run([sys.executable, "-c", "from checker.mutate.campaign import ORDER; print(' '.join(ORDER))"],
                           cwd=root, env=dict(os.environ, PYTHONPATH=str(root)), capture_output=True, text=True,
                           timeout=60)
    assert "chunk same-row-pairs computations" in order.stdout
