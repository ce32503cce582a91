"""The reference data: every shipped file loads, every entry is pinned (repository, 40-hex commit,
path, line or anchor) and names a spec fragment that exists or is reported not modelled; the loader
refuses malformed data with a located error."""
import os

import pytest

from checker.errors import SpecError
from checker.references import load
from conftest import SPECS


def test_every_shipped_file_loads_and_every_entry_is_pinned():
    refs = load.load_all()
    assert len(refs) >= 90
    assert {r.library for r in refs} >= {"CuTe", "Triton", "MLIR"}
    for r in refs:
        assert len(r.commit) == 40 and r.path and (r.line or r.anchor), r.name
        assert r.file.startswith("checker/references/data/")
        if r.status == "historical":
            assert r.note and "PR #" in r.note and r.expect == "differs"


def test_every_entry_names_a_fragment_that_exists_or_a_spec_not_yet_written():
    from checker.spec.load import load_spec

    specs = {os.path.splitext(n)[0]: load_spec(os.path.join(SPECS, n)) for n in os.listdir(SPECS)
             if n.endswith(".yaml") and n not in ("relations.yaml", "untranscribed.yaml")}
    for r in load.load_all():
        if r.spec in specs:
            assert specs[r.spec].fragment(r.fragment_id) is not None, (r.name, r.fragment_id)
        else:
            assert r.spec.startswith("m64nN"), r.spec  # the wgmma specs are not written yet


def test_the_historical_bugs_are_kept():
    names = {(r.name, r.commit[:8]) for r in load.load_all() if r.status == "historical"}
    assert ("SM80_16x8x256_S32U1U1S32_TN_XORPOPC.ALayout", "be692b48") in names  # before PR #1856
    assert ("SM80_16x8x256_S32U1U1S32_TN_XORPOPC.BLayout", "be692b48") in names
    assert ("SM80_16x8x32_S32S4S4S32_TN.BLayout", "ea46e277") in names  # before PR #3140


GOOD = """library: CuTe
repo: NVIDIA/cutlass
commit: 7107b05535f8977f5ecb9d01ee203205b1fd9bc4
path: include/cute/atom/mma_traits_sm80.hpp
entries:
  - name: X.ALayout
    line: 87
    fragment: {spec: m16n8k16, id: A.f16}
    status: current
    encoding:
      kind: cute
      layout: "((4,8),(2,2,2)):((32,1),(16,8,128))"
      tile: [16, 16]
"""


@pytest.mark.parametrize("old, new, line, col, what", [
    ("library: CuTe", "library: cute", 1, 10, "expected one of CuTe, Triton, MLIR, JAX"),
    ("commit: 7107b05535f8977f5ecb9d01ee203205b1fd9bc4", "commit: 7107b055", 3, 9, "a 40-hex commit"),
    ("repo: NVIDIA/cutlass", "repo: cutlass", 2, 7, "owner/name"),
    ("    line: 87", "    line: 0", 7, 11, "an integer in 1.."),
    ("    line: 87", "    anchor: f", 6, 5, None),  # fine: an anchor instead of a line
    ("    line: 87\n", "", 6, 5, "exactly one of line"),
    ("    status: current", "    status: old", 9, 13, "expected one of current, historical"),
    ("    status: current", "    status: historical", 6, 5, "needs a note"),
    ("      kind: cute", "      kind: pycute", 11, 13, "expected one of cute, triton, formula, table"),
    ("      tile: [16, 16]", "      tile: [16]", 13, 13, "expected [rows, cols]"),
    ("      tile: [16, 16]", "      tile: [16, 16]\n      colour: red", 14, 7, "unknown field 'colour'"),
    ("(16,8,128))", "(16,8))", 12, 40, "not congruent"),
    ("{spec: m16n8k16, id: A.f16}", "{spec: m16n8k16}", 8, 15, "missing field 'id'"),
])
def test_malformed_data_is_refused_with_a_location(tmp_path, old, new, line, col, what):
    path = tmp_path / "x.yaml"
    assert old in GOOD
    path.write_text(GOOD.replace(old, new))
    if what is None:
        assert load.load_file(str(path))[0].anchor == "f"
        return
    with pytest.raises(SpecError) as exc:
        load.load_file(str(path))
    assert what in str(exc.value), str(exc.value)
    assert (exc.value.span.line, exc.value.span.col) == (line, col), str(exc.value)


def test_formula_and_table_encodings_are_checked(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text(GOOD.replace("""      kind: cute
      layout: "((4,8),(2,2,2)):((32,1),(16,8,128))"
      tile: [16, 16]""", """      kind: formula
      elements: 8
      formula: |
        row = %laneid / 4 +
        col = 0"""))
    with pytest.raises(SpecError) as exc:
        load.load_file(str(path))
    assert exc.value.span.line == 14, str(exc.value)
    path.write_text(GOOD.replace("""      kind: cute
      layout: "((4,8),(2,2,2)):((32,1),(16,8,128))"
      tile: [16, 16]""", """      kind: table
      entries: [[0, 0, 0, 0], [0, 0, 1, 1]]"""))
    with pytest.raises(SpecError, match="given twice"):
        load.load_file(str(path))


def test_a_hostile_data_file_is_refused(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text("a: &x [1]\nb: *x\n")
    with pytest.raises(SpecError):
        load.load_file(str(path))
    path.write_text("[" * 100 + "]" * 100)
    with pytest.raises(SpecError, match="nesting"):
        load.load_file(str(path))


def test_docs_list_every_entry_with_its_pin():
    """Every entry of every data file docs/references.md has a section for (this one's own files among
    them) is listed with its line or anchor and its commit."""
    from conftest import ROOT

    with open(os.path.join(ROOT, "docs", "references.md"), encoding="utf-8") as fh:
        doc = fh.read()
    refs = [r for r in load.load_all() if f"### `{r.file}`" in doc]
    files = {r.file for r in refs}
    assert {f"checker/references/data/{n}" for n in (
        "cutlass-mma_traits_sm70.yaml", "cutlass-mma_traits_sm75.yaml", "cutlass-mma_traits_sm80.yaml",
        "cutlass-mma_traits_sm90.yaml", "cutlass-mma_traits_sm90_gmma.yaml", "mlir-nvgpu_mmautils.yaml",
        "triton-linear_layout_conversions.yaml")} <= files
    for r in refs:
        where = f"line {r.line}" if r.line else f"`{r.anchor}`"
        assert f"| `{r.name}` | {where}" in doc, r.name
        assert r.commit in doc or r.commit[:12] in doc


def test_every_kind_is_judged_none_is_left_unmodelled(tmp_path, run):
    """A copy atom (kind cute-copy) is compared like any other encoding: CuTe's movmatrix atom, whose
    DstLayout is its SrcLayout, is refuted against movmatrix's d, as its entry expects."""
    path = tmp_path / "x.yaml"
    path.write_text(GOOD.replace("""      kind: cute
      layout: "((4,8),(2,2,2)):((32,1),(16,8,128))"
      tile: [16, 16]""", """      kind: cute-copy
      registers: "(32,32):(32,1)"
      tile: [8, 128]
      element_bits: 16""").replace("{spec: m16n8k16, id: A.f16}", "{spec: movmatrix.m8n8, id: d}")
                    .replace("    status: current", "    status: current\n    expect: refuted"))
    ref = load.load_file(str(path))[0]
    assert ref.encoding.kind == "cute-copy" and ref.expect == "differs"
    r = run("conformance", SPECS, "--references", str(path))
    assert r.code == 0 and "movmatrix.m8n8 d: differs at 56 of 64 points; the first: thread 0 d1" in r.out
    assert "0 not modelled" in r.out
