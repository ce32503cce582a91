"""Every property can fail: each mutant spec states inside it which (fragment, property) results
are refuted; every other result of the file must be proved."""
import glob
import json
import os

import pytest

from conftest import CASES, expectations

from checker.properties import PROPERTIES

MUTANTS = sorted(glob.glob(os.path.join(CASES, "mutants", "*", "*.yaml")))


def _expected(path):
    out = set()
    for line in expectations(path).get("expect", []):
        subject, prop, verdict = line.rsplit(" ", 2)  # a theorem's subject may hold spaces
        out.add((subject, prop, verdict))
    return out


@pytest.mark.parametrize("path", MUTANTS, ids=[os.path.basename(os.path.dirname(p)) for p in MUTANTS])
def test_mutant_verdicts(run, path):
    r = run("prove", path, "--format", "json")
    results = json.loads(r.out)["results"]
    failing = {(x["fragment"] or x["subject"], x["property"], x["verdict"]) for x in results
               if x["verdict"] != "PROVED" and not x["erratum"] and not x["declared"]}
    assert failing == _expected(path)
    assert r.code == (1 if failing else 0)
    for x in results:
        if x["verdict"] == "REFUTED" and x["property"] != "erratum":
            assert x["counterexample"] and x["location"].startswith(path + ":")


def test_every_property_is_seen_failing():
    refuted = {prop for p in MUTANTS for _, prop, _ in _expected(p)}
    assert set(PROPERTIES) <= refuted


def test_every_property_is_seen_passing(run):
    r = run("prove", os.path.join(CASES, "..", "..", "specs"), "--format", "json")
    proved = {x["property"] for x in json.loads(r.out)["results"] if x["verdict"] == "PROVED"}
    assert set(PROPERTIES) <= proved
