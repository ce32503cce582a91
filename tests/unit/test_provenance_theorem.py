"""The provenance theorems (checker/theorems/provenance.py): every encoding a data-movement
layout's `read_from` names is proved to be the reading, in `prove` itself. Before them a reading
edited into another layout kept its names and passed every check of `prove`: an `.x4.trans`
whose matrices 0,1 and 2,3 were swapped, or an `.x1.trans` given the non-transposed formula."""
import json
import os
import shutil

import pytest

from conftest import SPECS

from checker.spec.load import load_spec

MOVEMENT = ("ldmatrix.m8n8", "ldmatrix.m8n16", "ldmatrix.m16n16", "stmatrix.m8n8", "stmatrix.m16n8",
            "movmatrix.m8n8")


def _prove(run, *paths):
    r = run("prove", *paths, "--format", "json", "--no-cache")
    return r.code, [x for x in json.loads(r.out)["results"] if x["property"] == "provenance"]


def test_every_named_encoding_is_proved_to_be_the_reading(run):
    paths = [os.path.join(SPECS, f"{s}.yaml") for s in MOVEMENT]
    code, results = _prove(run, *paths)
    named = {(os.path.basename(p), f.id, name) for p in paths for f in load_spec(p).fragments() for name in f.read_from}
    assert code == 0 and len(named) == 41
    got = {(os.path.basename(x["spec"]), x["subject"].split(" read from ")[0], x["subject"].split(" read from ")[1])
           for x in results}
    assert got == named and len(results) == len(named)
    assert {x["verdict"] for x in results} == {"PROVED"}
    assert all("z3 proved it, the enumeration agrees" in x["message"] for x in results)


@pytest.mark.parametrize("line, old, new, first", [
    # matrices 0,1 <-> 2,3 of .x4.trans (the audit's edit): the rows of the first matrix come from the third
    (135, "8 * (i >> 1)", "8 * ((i >> 1) ^ 1)", "thread 0 e0: the spec puts it at r[8][0], CuTe SM75_U16x8_LDSM_T gives r[0][0]"),
    # .x1.trans given the non-transposed reading
    (99, "row = (%laneid % 4) * 2 + (i & 0x1) + 8 * (i >> 1)", "row = (%laneid >> 2) + 8 * (i >> 1)",
     "thread 0 e1: the spec puts it at r[0][1], CuTe SM75_U16x2_LDSM_T gives r[1][0]"),
])
def test_a_reading_edited_away_from_its_sources_is_refuted_at_its_formula(run, tmp_path, line, old, new, first):
    shutil.copytree(SPECS, tmp_path / "specs")  # its compositions read the mma specs beside it
    path = tmp_path / "specs" / "ldmatrix.m8n8.yaml"
    lines = path.read_text(encoding="utf-8").split("\n")
    assert old in lines[line - 1], lines[line - 1]
    if line == 99:
        lines[99] = "            col = (%laneid % 4) * 2 + (i & 0x1)"
    lines[line - 1] = lines[line - 1].replace(old, new)
    path.write_text("\n".join(lines), encoding="utf-8")
    code, results = _prove(run, str(path))
    refuted = [x for x in results if x["verdict"] == "REFUTED"]
    assert code == 1 and len(refuted) == 2  # the CuTe atom and the Triton layout, each
    assert all(x["location"] == f"{path}:{line}:13" for x in refuted)
    assert first in refuted[0]["message"] and refuted[0]["counterexample"]["point"]["i"] in (0, 1)
    # the rest of the spec's provenance still holds
    assert {x["verdict"] for x in results if x not in refuted} == {"PROVED"}
