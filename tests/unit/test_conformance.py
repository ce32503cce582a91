"""checker conformance: CuTe's current SM80/SM70 traits (and Triton's and MLIR's layouts) proved equal
to the chapter's fragments, the historical CUTLASS bugs refuted with counterexamples, every entry
shown, and a verdict that is not what its entry expects failing the command."""
import json
import os

import pytest

from checker.references import conformance, load
from conftest import ROOT, SPECS


@pytest.fixture(scope="module")
def verdicts():
    from checker.commands.common import spec_files

    return conformance.run(spec_files([SPECS]))


def by_name(verdicts, name, status="current"):
    found = [v for v in verdicts if v.reference.name == name and v.reference.status == status]
    assert len(found) == 1, name
    return found[0]


@pytest.mark.parametrize("name, fragment", [
    ("SM80_16x8x16_F16F16F16F16_TN.ALayout", "A.f16"),
    ("SM80_16x8x16_F16F16F16F16_TN.BLayout", "B.f16"),
    ("SM80_16x8x16_F16F16F16F16_TN.CLayout", "C.float"),
    ("SM80_16x8x256_S32U1U1S32_TN_XORPOPC.ALayout", "A.b1"),
    ("SM80_16x8x32_S32S4S4S32_TN.BLayout", "B.i4"),
    ("SM70_8x8x4_F16F16F16F16_TN.ALayout", "A.f16.row"),
    ("SM70_8x8x4_F16F16F16F16_NT.BLayout", "B.f16.row"),
    ("SM70_8x8x4_F32F16F16F32_TN.CLayout", "C.f32"),
])
def test_current_cute_traits_are_proved_equal(verdicts, name, fragment):
    v = by_name(verdicts, name)
    assert v.verdict == "equal" and v.reference.fragment_id == fragment and v.comparison.equal
    assert all("unsat" in p and "enumeration agrees" in p for p in v.comparison.proofs)


def test_sm70_entries_are_proved_for_every_mma_computation(verdicts):
    v = by_name(verdicts, "SM70_8x8x4_F16F16F16F16_TN.ALayout")
    assert len(v.comparison.proofs) == 4 and v.comparison.points == 4 * 8 * 4


@pytest.mark.parametrize("name, first", [
    ("SM80_16x8x256_S32U1U1S32_TN_XORPOPC.ALayout", "thread 0 a1: the spec puts it at A[0][1], the candidate gives A[0][4]"),
    ("SM80_16x8x256_S32U1U1S32_TN_XORPOPC.BLayout", "thread 0 b1: the spec puts it at B[1][0], the candidate gives B[0][1]"),
    ("SM80_16x8x32_S32S4S4S32_TN.BLayout", "thread 1 b0: the spec puts it at B[8][0], the candidate gives B[4][0]"),
    ("SM75_16x8x8_F32F16F16F32_TN.ALayout", "thread 0 a2: the spec puts it at A[8][0], the candidate gives A[1][0]"),
    ("SM75_16x8x8_F32F16F16F32_TN.CLayout", "thread 0 c2: the spec puts it at C[8][0], the candidate gives C[1][0]"),
])
def test_historical_cutlass_bugs_are_refuted_with_counterexamples(verdicts, name, first):
    v = by_name(verdicts, name, "historical")
    assert v.verdict == "differs" and v.as_expected and first in v.reason
    assert v.comparison.differing > 0 and "enumeration agrees" in v.comparison.proofs[0]


def test_the_non_congruent_m16n8k128_layout_is_malformed(verdicts):
    v = by_name(verdicts, "SM80_16x8x128_S32U1U1S32_TN_XORPOPC.ALayout")
    assert v.verdict == "malformed" and v.as_expected and "not congruent" in v.reason


def test_triton_and_mlir_agree(verdicts):
    """Their current code agrees with every reading; their historical entries (MLIR's wgmma store
    before llvm PR #78413) differ, as the entries say."""
    for lib in ("Triton", "MLIR"):
        mine = [v for v in verdicts if v.reference.library == lib and v.reference.status == "current"]
        assert mine and all(v.verdict == "equal" for v in mine), lib
        old = [v for v in verdicts if v.reference.library == lib and v.reference.status == "historical"]
        assert all(v.verdict == "differs" and v.as_expected for v in old), lib


def test_every_entry_appears_in_every_format(run):
    refs = load.load_all()
    md = run("conformance", SPECS, "--format", "markdown")
    js = run("conformance", SPECS, "--format", "json")
    text = run("conformance", SPECS)
    assert md.code == js.code == text.code == 0, text.out
    got = json.loads(js.out)
    assert len(got["entries"]) == len(refs) == got["counts"]["entries"]
    for r in refs:
        assert f"`{r.name}`" in md.out and r.name in text.out
    assert got["counts"]["not as expected"] == 0 and got["counts"]["not modelled"] == 0  # every spec exists now


def test_the_committed_report_page_lists_every_entry():
    with open(os.path.join(ROOT, "reports", "conformance.md"), encoding="utf-8") as fh:
        page = fh.read()
    for r in load.load_all():
        assert f"`{r.name}`" in page


MUTANT = """library: CuTe
repo: NVIDIA/cutlass
commit: 7107b05535f8977f5ecb9d01ee203205b1fd9bc4
path: include/cute/atom/mma_traits_sm80.hpp
entries:
  - name: SM80_16x8x16_F16F16F16F16_TN.ALayout
    line: 87
    fragment: {spec: m16n8k16, id: A.f16}
    status: current
    encoding:
      kind: cute
      layout: "((4,8),(2,2,2)):((32,1),(8,16,128))"
      tile: [16, 16]
  - name: ALayout_64x16
    line: 451
    fragment: {spec: m64nNk64, id: A.f16, params: {N: 64}}
    status: current
    encoding:
      kind: cute
      layout: "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))"
      tile: [64, 16]
"""


def test_a_current_entry_that_differs_fails_the_command(run, tmp_path):
    data = tmp_path / "refs.yaml"
    data.write_text(MUTANT)
    r = run("conformance", SPECS, "--references", str(data))
    assert r.code == 1
    assert f"{data}:6:5: CuTe SM80_16x8x16_F16F16F16F16_TN.ALayout (current) vs m16n8k16 A.f16: differs" in r.out
    assert "[expected equal]" in r.out
    assert "not modelled: no spec m64nNk64 yet" in r.out  # a shape no spec has
    data.write_text(MUTANT.replace("(8,16,128)", "(16,8,128)"))
    assert run("conformance", SPECS, "--references", str(data)).code == 0
    data.write_text(MUTANT.replace("status: current\n    encoding:\n      kind: cute\n      layout: \"((4,8),(2,2,2))",
                                   "status: current\n    expect: differs\n    encoding:\n      kind: cute\n"
                                   "      layout: \"((4,8),(2,2,2))", 1).replace("(8,16,128)", "(16,8,128)"))
    r = run("conformance", SPECS, "--references", str(data))
    assert r.code == 1 and "[expected differs]" in r.out


def test_one_entry_is_counted_as_one(run, tmp_path):
    """A data file of one's own with one entry (docs/references.md, adding an entry): `1 reference
    entry`, not `1 reference entries`."""
    data = tmp_path / "refs.yaml"
    header, first, _ = MUTANT.replace("(8,16,128)", "(16,8,128)").split("  - name: ")
    data.write_text(header + "  - name: " + first)
    r = run("conformance", SPECS, "--references", str(data))
    assert r.code == 0 and r.out.rstrip().splitlines()[-1].startswith("1 reference entry: 1 equal (proved),"), r.out


def test_malformed_data_exits_3(run, tmp_path):
    data = tmp_path / "refs.yaml"
    data.write_text(MUTANT.replace("tile: [16, 16]", "tile: [16, -1]"))
    r = run("conformance", SPECS, "--references", str(data))
    assert r.code == 3 and f"{data}:13:" in r.err and "Traceback" not in r.err


def test_a_parametric_fragment_is_compared_per_instance(run):
    """The 128-thread path: CuTe's CLayout_64xN equals wgmma's D at each N it names (the aliases
    CLayout_64x8 and CLayout_64x16 of lines 437-438 are its instances at 8 and 16)."""
    r = run("conformance", SPECS, "--format", "json")
    got = {(e["name"], e["fragment"]): e["verdict"] for e in json.loads(r.out)["entries"]}
    assert got[("CLayout_64xN<8>", "D.float[N=8]")] == "equal" and got[("CLayout_64xN<16>", "D.float[N=16]")] == "equal"


def test_errata_name_the_encodings_that_agree(run):
    r = run("errata", os.path.join(SPECS, "m16n8k256.yaml"), "--format", "json")
    e = next(x for x in json.loads(r.out)["errata"] if x["subject"] == "A.b1")
    assert e["encodings"]["reading"] == ["CuTe `SM80_16x8x256_S32U1U1S32_TN_XORPOPC.ALayout`"]
    assert e["encodings"]["printed"] == []
    assert e["encodings"]["neither"] == ["CuTe `SM80_16x8x256_S32U1U1S32_TN_XORPOPC.ALayout` (historical)"]


def test_mlir_ldmatrix_lowering_is_proved_against_the_readings(verdicts, run, tmp_path):
    """MLIR's ldmatrix addresses composed with its operand layout (mlir-nvgpu_ldmatrix.yaml) equal
    the ldmatrix readings; the same formulas against the other form (.trans for none) differ."""
    mine = [v for v in verdicts if v.reference.file.endswith("mlir-nvgpu_ldmatrix.yaml")]
    assert len(mine) == 3 and all(v.verdict == "equal" for v in mine)
    assert {v.reference.fragment_id for v in mine} == {"r.x4", "r.x2", "r.x2.trans"}
    data = tmp_path / "mlir.yaml"
    with open(os.path.join(ROOT, "checker", "references", "data", "mlir-nvgpu_ldmatrix.yaml"), encoding="utf-8") as fh:
        data.write_text(fh.read().replace("id: r.x2.trans}", "id: r.x2}"))
    r = run("conformance", SPECS, "--references", str(data))
    assert r.code == 1 and "transpose (current) vs ldmatrix.m8n8 r.x2: differs" in r.out
    assert "the first: thread 0 e1: the spec puts it at r[0][1], the candidate gives r[1][0]" in r.out


def test_mosaic_gpu_layouts_are_proved_and_a_misread_one_refuted(run, tmp_path):
    """JAX Mosaic GPU's TiledLayouts (jax-mosaic_gpu.yaml), evaluated from their four arguments, equal
    the wgmma readings; the same layout with its two lane dimensions swapped differs, at the
    smallest point; a tiling that does not apply to its own first tile is malformed data."""
    src = os.path.join(ROOT, "checker", "references", "data", "jax-mosaic_gpu.yaml")
    r = run("conformance", SPECS, "--references", src, "--format", "json")
    got = json.loads(r.out)
    assert r.code == 0 and got["counts"]["equal"] == got["counts"]["entries"] == 6
    data = tmp_path / "mosaic.yaml"
    with open(src, encoding="utf-8") as fh:
        text = fh.read()
    data.write_text(text.replace("lane_dims: [-3, -2]", "lane_dims: [-2, -3]", 1))
    r = run("conformance", SPECS, "--references", str(data))
    assert r.code == 1 and "WGMMA_LAYOUT (A.f16) (current) vs m64nNk16 A.f16: differs" in r.out, r.err
    assert "the first: thread 1 a0" in r.out
    edited = text.replace("tiling: [[64, 8], [16, 8]", "tiling: [[64, 7], [16, 8]", 1)
    data.write_text(edited)
    r = run("conformance", SPECS, "--references", str(data))
    line = edited[:edited.index("tiling: [[64, 7]")].count("\n") + 1  # malformed data: exit 3, at the tiling
    assert r.code == 3 and f"{data}:{line}:15: error: the tiling does not apply to its own first tile [64, 7]" \
        in r.err, r.out[-800:] + r.err


def test_workers_give_the_verdicts_and_the_first_error_of_one_process(monkeypatch):
    """`--jobs 2` spreads the entries over forked workers: the same verdicts in the same order, and
    where entries raise, the error of the first of them in the entries' order, whichever process
    met it (a spec error comes back whole: its location, message and hint)."""
    from checker.commands.common import spec_files
    from checker.errors import SourceSpan, SpecError

    files = spec_files([SPECS])
    entries = os.path.join(ROOT, "checker", "references", "data", "cutlass-mma_traits_sm80.yaml")
    one = conformance.run(files, [entries], jobs=1)
    two = conformance.run(files, [entries], jobs=2)
    assert len(one) > 4
    assert [(v.reference.name, v.verdict, v.reason) for v in one] == [(v.reference.name, v.verdict, v.reason) for v in two]
    failing = {one[2].reference.name: SpecError(SourceSpan("first.yaml", 3, 4), "the first", "its hint"),
               one[-1].reference.name: SpecError(SourceSpan("last.yaml", 5, 6), "the last")}
    real = conformance.judge

    def judge(ref, specs, reading=None):
        if ref.name in failing:
            raise failing[ref.name]
        return real(ref, specs, reading)

    monkeypatch.setattr(conformance, "judge", judge)
    for jobs in (1, 2):
        with pytest.raises(SpecError) as caught:
            conformance.run(files, [entries], jobs=jobs)
        assert str(caught.value) == "first.yaml:3:4: error: the first (its hint)", jobs


def test_an_entry_naming_a_fragment_its_spec_lacks_is_refused_at_the_entry(run, tmp_path):
    """A spec that is there and has no such fragment: a mistyped id, which had been reported
    'not modelled' and exited 0, so that the entry was never compared."""
    data = tmp_path / "refs.yaml"
    data.write_text(MUTANT.replace("id: A.f16}", "id: A.f61}", 1).replace("(8,16,128)", "(16,8,128)"))
    r = run("conformance", SPECS, "--references", str(data))
    assert r.code == 3, r.out + r.err
    assert (f"{data}:6:5: error: the entry 'SM80_16x8x16_F16F16F16F16_TN.ALayout' names a fragment its spec does "
            "not have:") in r.err and "has no fragment 'A.f61'. Did you mean" in r.err, r.err


def test_references_with_no_entry_check_nothing_and_say_so(run, tmp_path):
    """`--references EMPTY_FOLDER` printed '0 reference entries' and exited 0, as a pass; crosscheck
    with no dump is a usage error, and so is this."""
    empty = tmp_path / "refs"
    empty.mkdir()
    (tmp_path / "refs" / "notes.txt").write_text("not a data file\n")
    r = run("conformance", SPECS, "--references", str(empty))
    assert r.code == 2 and f"no reference entry in {empty}: nothing was checked" in r.err, (r.code, r.err)
    assert r.out == ""
