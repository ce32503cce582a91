"""Triton's MMA v3 and MLIR NVGPU's warpgroup accumulator as reference data: every entry proved
equal at the N it is given at (powers of two for Triton; 24, 40, 248 among MLIR's), a misread
basis or formula refuted with its smallest counterexample, and MLIR's store before llvm PR #78413
kept as the historical bug it was (it stored 16 column blocks whatever N)."""
import pytest

from checker.references import conformance, load
from conftest import SPECS

TRITON = "checker/references/data/triton-nvmma_v3.yaml"
MLIR = "checker/references/data/mlir-nvgpu_wgmma.yaml"


def _verdicts(path):
    import glob
    import os

    from conftest import ROOT

    return conformance.run(sorted(glob.glob(os.path.join(SPECS, "*.yaml"))), [os.path.join(ROOT, path)])


def test_every_triton_v3_entry_is_equal_and_covers_every_k():
    vs = _verdicts(TRITON)
    assert len(vs) == 16 and all(v.verdict == "equal" for v in vs)
    got = {(v.reference.spec, v.reference.fragment_id) for v in vs}
    assert {("m64nNk8", "A.tf32"), ("m64nNk16", "A.f16"), ("m64nNk32", "A.i8")} <= got
    assert {f"D.float[N={n}]" for n in (8, 16, 32, 64, 128, 256)} <= {f for _, f in got}
    assert all(dict(v.reference.params).get("N", 8) & (dict(v.reference.params).get("N", 8) - 1) == 0 for v in vs)


def test_every_current_mlir_entry_is_equal_the_historical_ones_refuted():
    vs = _verdicts(MLIR)
    current = [v for v in vs if v.reference.status == "current"]
    assert len(current) == 14 and all(v.verdict == "equal" for v in current)
    assert {24, 40, 248} <= {dict(v.reference.params)["N"] for v in current}
    # the ops' verifiers admit only an f32 accumulator: no entry for m64nNk256's s32 D
    assert {v.reference.spec for v in current} == {"m64nNk8", "m64nNk16", "m64nNk32"}
    old = {dict(v.reference.params)["N"]: v for v in vs if v.reference.status == "historical"}
    assert set(old) == {64, 256} and all(v.verdict == "differs" and v.as_expected for v in old.values())
    assert all(v.reference.commit.startswith("0a6e948e") and "PR #78413" in v.reference.note for v in old.values())
    # N = 256: elements 64..127 (columns 128..255) never stored; N = 64: reads element 32 of 32
    assert old[256].comparison.differing == 8192 and "thread 0 d64" in old[256].reason
    assert "thread 0 d32" in old[64].reason and "the spec has no such element" in old[64].reason


@pytest.mark.parametrize("old, new, where", [
    # the lane bases of the accumulator misread in Triton's (outer, inner) order
    ("      lane: [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]\n      warp: [[16, 0], [32, 0]]\n",
     "      lane: [[1, 0], [2, 0], [4, 0], [0, 2], [0, 4]]\n      warp: [[16, 0], [32, 0]]\n", "thread 1 d0"),
    # the warps stacked 8 rows apart instead of 16
    ("      warp: [[16, 0], [32, 0]]\n", "      warp: [[8, 0], [32, 0]]\n", "thread 32 d0"),
])
def test_a_misread_triton_basis_is_refuted(tmp_path, run, old, new, where):
    from conftest import ROOT
    import os

    text = open(os.path.join(ROOT, TRITON)).read()
    head, first = text.split("entries:\n", 1)
    entry = "  - " + first.split("\n  - ")[0].removeprefix("  - ") + "\n"
    assert old in entry
    path = tmp_path / "t.yaml"
    path.write_text(head + "entries:\n" + entry.replace(old, new))
    r = run("conformance", SPECS, "--references", str(path))
    assert r.code == 1 and "differs" in r.out and where in r.out and "[expected equal]" in r.out


def test_a_misread_mlir_formula_is_refuted(tmp_path, run):
    from conftest import ROOT
    import os

    text = open(os.path.join(ROOT, MLIR)).read()
    head, first = text.split("entries:\n", 1)
    entry = "  - " + first.split("\n  - ")[0].removeprefix("  - ") + "\n"
    wrong = entry.replace("col = tj + (i / 4) * 8 + (i % 2)", "col = tj + (i / 4) * 8 + ((i / 2) % 2)")
    assert wrong != entry
    path = tmp_path / "m.yaml"
    path.write_text(head + "entries:\n" + wrong)
    r = run("conformance", SPECS, "--references", str(path))
    assert r.code == 1 and "thread 0 d1" in r.out and "[expected equal]" in r.out
    assert load.load_file(str(path))[0].encoding.kind == "formula"


def test_the_cute_dsl_accumulator_of_cutlass_3254_is_the_same_map_as_clayout_64x8():
    """cutlass#3254 reports the CuTe DSL's TV layout C at N = 8, ((4,8,4),(2,2)):((128,1,16),(64,8)),
    as wrong against ((4,8,4),(2,2,1)):(..). As a map they are one: the missing mode has size 1.
    What differs is the rank CuTe's algebra sees, not which thread holds which cell; a layout
    that moved a cell would be refuted (the second candidate swaps the two value strides)."""
    import checker

    d = checker.load(f"{SPECS}/m64nNk16.yaml").fragment("D.float[N=8]")
    same = d.compare("((4,8,4),(2,2)):((128,1,16),(64,8))")
    assert same.equal and same.points == 512
    assert d.compare("((4,8,4),(2,2,1)):((128,1,16),(64,8,512))").equal
    moved = d.compare("((4,8,4),(2,2)):((128,1,16),(8,64))")
    assert not moved.equal and moved.difference is not None
