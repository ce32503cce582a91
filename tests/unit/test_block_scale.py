"""mma with block scaling (9.7.14.3): the scale factors SF_A and SF_B. The lanes of each selector
value are the printed sentence's, each reading is proved equal to CuTe's SFALayout/SFBLayout at
selector 0 (cute-blockscaled.yaml), and a misread of each is refuted or refused at its place: the
lanes, the row (which every point property lets through), the source, the bytes."""
import json
import os
import shutil

import pytest

from checker.spec.load import load_spec
from conftest import ROOT, SPECS

SPEC = os.path.join(SPECS, "mma.m16n8.block_scale.yaml")
DATA = os.path.join(ROOT, "checker", "references", "data", "cute-blockscaled.yaml")
ROW = "row = ((%laneid % 2) * 8) + (%laneid >> 2)"


def _copy(tmp_path, old=None, new=None, count=1, path=SPEC):
    """The spec (with one edit) beside the dense specs its theorems read."""
    for shape in ("m16n8k16", "m16n8k32", "m16n8k64"):  # k32 and k64 say "the same as" k16
        shutil.copy(os.path.join(SPECS, f"{shape}.yaml"), tmp_path)
    text = open(path, encoding="utf-8").read()
    if old is not None:
        assert old in text, old
        text = text.replace(old, new, count)
    out = tmp_path / os.path.basename(path)
    out.write_text(text, encoding="utf-8")
    return out


def _results(run, path):
    r = run("prove", str(path), "--no-cache", "--format", "json")
    return r, json.loads(r.out)["results"]


def test_each_selector_value_is_an_instance_over_the_printed_lanes():
    spec = load_spec(SPEC)
    lanes = {f.id: f.lanes for f in spec.fragments()}
    assert len(lanes) == 18
    for vec in ("1X", "2X", "4X"):
        for t in (0, 1):
            assert lanes[f"SF_A.{vec}[thread-id-a={t}]"] == tuple(x for x in range(32) if x % 4 in (2 * t, 2 * t + 1))
        for t in range(4):
            assert lanes[f"SF_B.{vec}[thread-id-b={t}]"] == tuple(x for x in range(32) if x % 4 == t)
    standing = {f.id: f.figure_reading.standing for f in spec.fragments()}
    assert {k for k, v in standing.items() if v == "agreed"} == {
        f"SF_{o}.{v}[thread-id-{o.lower()}=0]" for o in "AB" for v in ("1X", "2X", "4X")}


def test_the_catalogue_entry_proves(run, tmp_path):
    r, results = _results(run, _copy(tmp_path))
    assert r.code == 0, r.out[-2000:]
    rows = [x for x in results if x["property"] == "scale-rows"]
    assert len(rows) == 18 and {x["verdict"] for x in rows} == {"PROVED"}


def test_every_reading_equals_cute_at_selector_0(run):
    r = run("conformance", SPECS, "--references", DATA, "--format", "json")
    assert r.code == 0, r.out[-1500:] + r.err
    got = {(e["fragment"], e["verdict"]) for e in json.loads(r.out)["entries"]}
    assert got == {(f"SF_{o}.{v}[thread-id-{o.lower()}=0]", "equal") for o in "AB" for v in ("1X", "2X", "4X")}


def test_a_swapped_row_is_refuted_by_scale_rows_alone(run, tmp_path):
    """row = 2 * groupID + %laneid % 2 is a bijection onto the 16 rows: every point property holds;
    the row of lane 1 is not that of its a4 (groupID + 8)."""
    path = _copy(tmp_path, ROW, "row = ((%laneid >> 2) * 2) + (%laneid % 2)")
    r, results = _results(run, path)
    assert r.code == 1
    mine = [x for x in results if x["spec"] == str(path)]
    assert {x["verdict"] for x in mine if x["fragment"] == "SF_A.1X[thread-id-a=0]"} == {"PROVED"}
    bad = [x for x in mine if x["property"] == "scale-rows" and x["verdict"] == "REFUTED"]
    assert {x["subject"] for x in bad} == {"SF_A.1X[thread-id-a=0]", "SF_A.1X[thread-id-a=1]"}
    first = next(x for x in bad if x["subject"] == "SF_A.1X[thread-id-a=0]")
    assert first["counterexample"]["point"] == {"lane": 1, "i": 0}
    assert "lane 1 a0 gives (1, 0) but m16n8k32/A.i8 lane 1 a4 gives (8, 0)" in first["message"]
    assert first["location"].startswith(f"{path}:")


def test_a_reading_that_disagrees_with_cute_differs(run, tmp_path):
    path = _copy(tmp_path, ROW, "row = ((%laneid >> 2) * 2) + (%laneid % 2)")
    r = run("conformance", str(tmp_path), "--references", DATA, "--format", "json")
    assert r.code == 1
    got = {e["fragment"]: e for e in json.loads(r.out)["entries"]}
    assert got["SF_A.1X[thread-id-a=0]"]["verdict"] == "differs"
    assert "thread 1 a0: the spec puts it at SF_A[1][0], the candidate gives SF_A[8][0]" in r.out
    assert got["SF_B.1X[thread-id-b=0]"]["verdict"] == "equal"
    assert path.exists()


@pytest.mark.parametrize("old, new, says", [
    # a lane condition that is not the sentence's: lanes 0 and 2 of each quad
    ("%laneid % 4 == 2 * thread_id_a || %laneid % 4 == 2 * thread_id_a + 1",
     "%laneid % 4 == 2 * thread_id_a || %laneid % 4 == 2 * thread_id_a + 2",
     "at thread-id-a = 0 the condition picks lanes [0, 2, 4, 6"),
    # SF_B from every lane of the quad
    ('lanes: "%laneid % 4 == thread_id_b"', 'lanes: "%laneid % 4 <= thread_id_b"',
     "at thread-id-b = 1 the condition picks lanes [0, 1, 4, 5"),
    # byte-id 1 at .scale_vec::2X would split a pair across the two halves
    ("byte_id: [0, 2]", "byte_id: [0, 1]", "byte-id-a = 1 with 2 byte(s) a lane selects bytes 1..2"),
    # .ue4m3 is Table 36's scale type at .scale_vec::4X only
    ("stype: [ue8m0]\n", "stype: [ue4m3]\n", "no stated row of Table 36 gives .ue4m3 with `.scale_vec::1X`"),
    # a printed condition the section does not state
    ('- "`%laneid` % 4 == 2 or 3"', '- "`%laneid` % 4 == 1 or 2"', "is in no stated sentence of the section"),
])
def test_a_misread_selection_is_refused_at_its_place(run, tmp_path, old, new, says):
    path = _copy(tmp_path, old, new)
    line = open(path, encoding="utf-8").read().split(new)[0].count("\n") + 1
    r = run("prove", str(path), "--no-cache")
    assert r.code == 3, r.out[-1500:] + r.err
    text = r.out + r.err
    assert says in text, text[-1500:]
    assert f"{path}:{line}:" in text, text[-1500:]


def test_a_wrong_byte_is_refuted(run, tmp_path):
    """Element i of SF_A at 4X is column i of scale_A: a reading that reverses the bytes is no
    longer CuTe's (value 16 i .. 16 i + 15 of the row is SF element i)."""
    old = "          row = ((%laneid % 2) * 8) + (%laneid >> 2)\n          col = i\n    - id: SF_B.4X"
    path = _copy(tmp_path, old, old.replace("col = i", "col = 3 - i"))
    r = run("conformance", str(tmp_path), "--references", DATA, "--format", "json")
    assert r.code == 1
    got = {e["fragment"]: e["verdict"] for e in json.loads(r.out)["entries"]}
    assert got["SF_A.4X[thread-id-a=0]"] == "differs" and got["SF_A.2X[thread-id-a=0]"] == "equal"
    assert "thread 0 a0: the spec puts it at SF_A[0][3], the candidate gives SF_A[0][0]" in r.out
    assert path.exists()


def test_the_lanes_a_selector_does_not_pick_hold_nothing_in_any_answer(run):
    """A lane outside the selector's is no holder: `where`, `table`, `eval` and the API answer for
    the picked lanes only (they had answered for all 32, so that thread-id-a = 1's SF_A[9][0] was
    held by lanes 5 and 7, 'not injective'), and `export` refuses a layout of part of a warp."""
    import checker

    fid = "SF_A.1X[thread-id-a=1]"
    r = run("where", SPEC, "--fragment", fid, "--row", "9", "--col", "0", "--format", "json")
    assert r.code == 0, r.out + r.err
    got = json.loads(r.out)
    assert [(h["lane"], h["i"]) for h in got["holders"]] == [(7, 0)] and got["unique"]
    r = run("table", SPEC, "--fragment", fid, "--format", "json")
    [table] = json.loads(r.out)
    entries = table["entries"]
    assert [e[0] for e in entries] == [t for t in range(32) if t % 4 in (2, 3)]
    assert [e[2] for e in entries] == [(t % 2) * 8 + t // 4 for t in range(32) if t % 4 in (2, 3)]
    r = run("eval", SPEC, "--fragment", fid, "--lane", "0", "--i", "0")
    assert r.code == 2 and "lane 0 holds no element of SF_A.1X[thread-id-a=1]: the lanes thread-id-a = 1 picks are 2, 3, 6" in r.err
    r = run("export", SPEC, "--fragment", fid, "--to", "cute")
    assert r.code == 1 and "is held by 16 of the warp's 32 lanes, those thread-id-a = 1 picks (2, 3, 6, 7" in r.err
    layout = checker.load(SPEC).fragment(fid)
    assert layout.holders(9, 0) == [(7, 0)] and layout.cell(0, 0) is None and layout.cell(7, 0) == (9, 0)
    assert [t for t, *_ in layout.entries()] == [e[0] for e in entries]
