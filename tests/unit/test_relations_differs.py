"""A relation declared refuted says where it fails first (`witness`) and at how many points of its
domain (`differs`). The witness alone let an edit of a side pass that kept the smallest
counterexample but moved others: dropping the row transform of ldmatrix-blocks/m8n8k4/A.f16.row
(still refuted first at lane 1, r = 0, j = 0) passed as declared. The count is the enumeration's,
over the whole domain, as `checker prove` prints it ("120 of 128 points give different cells")."""
import os

import pytest

from conftest import SPECS

ROW = 'right: {fragment: m8n8k4/A.f16.row, lane: "0", element: "2 * r", row: "row + %laneid / 4"'


def test_the_catalogue_pins_every_refuted_relation_by_its_count(run):
    r = run("prove", os.path.join(SPECS, "relations.yaml"), "--no-cache")
    assert r.code == 0, r.out + r.err
    assert "6 refuted as declared, 0 failed" in r.out
    assert "ldmatrix-blocks/m8n8k4/A.f16.row" in r.out and "120 of 128 points give different cells" in r.out


def test_an_edit_that_keeps_the_witness_but_moves_other_points_fails_at_differs(run, copy):
    path, _, _ = copy("relations.yaml", ROW, ROW.replace('row: "row + %laneid / 4"', 'row: "row"'))
    with open(path, encoding="utf-8") as fh:
        line = next(k for k, text in enumerate(fh, 1) if text.strip() == "differs: 120")
    r = run("prove", path, "--no-cache")
    assert r.code == 1, r.out + r.err
    assert (f"relations.yaml:{line}:14: error: relation ldmatrix-blocks/m8n8k4/A.f16.row refuted: refuted, as "
            "declared, at its witness, but ") in r.out
    assert "where it declares differs: 120: an edit moved its sides" in r.out
    assert "0 failed" not in r.out


def test_a_refuted_relation_without_its_count_is_told_the_count(run, copy):
    path, _, _ = copy("relations.yaml", "    differs: 124\n    for: {r: [0, 1], j: [0, 1]}\n    left:  {fragment: m8n8k4/A.f16.col",
                      "    for: {r: [0, 1], j: [0, 1]}\n    left:  {fragment: m8n8k4/A.f16.col")
    r = run("prove", path, "--no-cache")
    assert r.code == 1
    assert "ldmatrix-blocks/m8n8k4/A.f16.col refuted: refuted, as declared, but it does not say at how many points: give differs: 124 (of 128)" in r.out


@pytest.mark.parametrize("command", ["validate", "prove"])
def test_differs_on_a_relation_expected_to_hold_is_refused_where_it_stands(run, copy, command):
    old = "    expect: holds\n    for: {j: [0, 1], i: [0, 3]}\n"
    path, line, _ = copy("relations.yaml", old, old + "    differs: 3\n")
    r = run(command, path)
    assert r.code == 3, r.out + r.err
    assert f"relations.yaml:{line + 2}:5: error: a relation expected to hold differs nowhere" in r.out + r.err
