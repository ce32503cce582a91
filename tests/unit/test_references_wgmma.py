"""Triton's MMA v3 and MLIR NVGPU's warpgroup accumulator as reference data: every entry proved
equal at the N it is given at (powers of two for Triton; 24, 40, 248 among MLIR's), a misread
basis or formula refuted with its smallest counterexample, and MLIR's store before llvm PR #78413
kept as the historical bug it was (it stored 16 column blocks whatever N). And a reading's sources:
each names an entry of its own fragment, a source copied from another fragment's reading refused at
its line."""
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


# --- a reading's sources: entries of its own fragment ---------------------------------------------

CUTE_GMMA = "include/cute/atom/mma_traits_sm90_gmma.hpp"
MOSAIC = "jax/experimental/mosaic/gpu/fragmented_array.py"
JAX_ACC = ('        line: 850\n        name: "WGMMA_LAYOUT_ACC_32BIT (32-bit accumulators; WGMMA_LAYOUT, line 836, '
           'for .f16 ones), registers in the order of acc.flat (jax/experimental/mosaic/gpu/wgmma.py:176)"\n')


def _refused(run, path) -> str:
    """What validate says of an edited spec it refuses (exit 3, as every spec error)."""
    r = run("validate", path)
    assert r.code == 3, r.out + r.err
    return r.err


@pytest.mark.parametrize("name, old, new, says", [
    # A's ALayout pasted into D's reading: an entry at that line, under that name, of m64nNk16 A.f16
    ("m64nNk16.yaml", '        line: 434\n        name: "SM90::GMMA::CLayout_64xN"\n',
     '        line: 451\n        name: "SM90::GMMA::ALayout_64x16"\n',
     f"expected an entry of m64nNk16 D.float at line 451 of {CUTE_GMMA} (cute-gmma), found ALayout_64x16 there "
     "for m64nNk16 A.f16 only: cite what m64nNk16 D.float was read from, or give the data an entry of it"),
    # m64nNk16's A in m64nNk32's reading, CuTe's and Mosaic GPU's
    ("m64nNk32.yaml", '        line: 455\n        name: "SM90::GMMA::ALayout_64x32"\n',
     '        line: 451\n        name: "SM90::GMMA::ALayout_64x16"\n',
     f"expected an entry of m64nNk32 A.i8 at line 451 of {CUTE_GMMA} (cute-gmma), found ALayout_64x16 there "
     "for m64nNk16 A.f16 only"),
    ("m64nNk32.yaml", '        line: 869\n        name: "WGMMA_LAYOUT_8BIT (A of 8-bit types in registers)',
     '        line: 836\n        name: "WGMMA_LAYOUT (A of 16-bit types in registers)',
     f"expected an entry of m64nNk32 A.i8 at line 836 of {MOSAIC} (jax-mosaic_gpu), found WGMMA_LAYOUT there "
     "for m64nNk16 A.f16, m64nNk16 D.float only"),
    # the 16-bit accumulator for m64nNk8's D, which has f32 only
    ("m64nNk8.yaml", JAX_ACC, '        line: 836\n        name: "WGMMA_LAYOUT (16-bit accumulators)"\n',
     f"expected an entry of m64nNk8 D.f32 at line 836 of {MOSAIC} (jax-mosaic_gpu), found WGMMA_LAYOUT there "
     "for m64nNk16 A.f16, m64nNk16 D.float only"),
    # another sparse shape's trait
    ("m64nNk32.sp.yaml", '        line: 251\n        name: "MMA_Traits<SM90::GMMA::SPARSE::GMMA_64x8x32_F16F16F16_RS>',
     '        line: 1379\n        name: "MMA_Traits<SM90::GMMA::SPARSE::GMMA_64x8x16_F32TF32TF32_RS_TN>',
     "expected an entry of m64nNk32.sp A.sp.f16 at line 1379 of include/cute/atom/mma_traits_sm90_gmma_sparse.hpp "
     "(cute-gmma-sparse), found SPARSE::GMMA_64x8x16_F32TF32TF32_RS_TN::ALayout there for m64nNk16.sp A.sp.tf32 only"),
    # the audit's case: m64nNk256's .b1 D read from Mosaic GPU's 32-bit accumulator, never issued for it
    ("m64nNk256.yaml", "      figure: Figure 155\n      standing: extrapolated\n      sources: []\n",
     '      figure: Figure 155\n      standing: agreed\n      sources:\n      - library: JAX\n        repo: "jax-ml/jax"\n'
     '        commit: "cec06d116c05f0d52adfceee3d3b730fdbcb0ce5"\n        path: "jax/experimental/mosaic/gpu/'
     'fragmented_array.py"\n' + JAX_ACC,
     f"expected an entry of m64nNk256 D.s32 at line 850 of {MOSAIC} (jax-mosaic_gpu), found WGMMA_LAYOUT_ACC_32BIT "
     "there for m64nNk16 D.float, m64nNk32 D.s32.float, m64nNk8 D.f32 only"),
])
def test_a_source_copied_from_another_fragment_is_refused_at_its_line(copy, run, name, old, new, says):
    path, line, _ = copy(name, old, new)
    at = line + new[:new.index("        line: ")].count("\n")  # the source's `line:`, where the pin is
    err = _refused(run, path)
    assert f"{path}:{at}:15: error: {says}" in err, err


def _citations() -> list:
    """(spec file, shape, fragment id, source) of every reading's source in specs/, read as YAML."""
    import glob
    import os

    import yaml

    out = []
    for path in sorted(glob.glob(os.path.join(SPECS, "m64nN*.yaml"))):
        doc = yaml.safe_load(open(path, encoding="utf-8"))
        for sec in doc["sections"]:
            for fr in sec.get("fragments", []):
                for s in (fr.get("reading") or {}).get("sources") or []:
                    out.append((os.path.basename(path), doc["shape"], fr["id"], s))
    return out


def test_every_current_citation_names_an_entry_of_its_own_fragment(run):
    """Each source in specs/ has, in the data file it resolves to, an entry at its line attached to the
    fragment whose reading cites it (the D of m64nNk8 and m64nNk32 cited line 434, whose only
    entries were m64nNk16's); and the catalogue loads."""
    import os

    import yaml

    from conftest import ROOT

    folder = os.path.join(ROOT, "checker", "references", "data")
    data = {n[:-5]: yaml.safe_load(open(os.path.join(folder, n), encoding="utf-8")) for n in os.listdir(folder)
            if n.endswith(".yaml")}
    cited = _citations()
    assert len(cited) == 14  # 9 readings: the dense A and D of k8, k16, k32 and the three sparse A
    for spec, shape, fid, s in cited:
        stems = [s["reference"]] if s.get("reference") else [
            k for k, v in data.items() if (v["library"], v["repo"], v["commit"], v["path"]) ==
            (s["library"], s["repo"], s["commit"], s["path"])]
        assert len(stems) == 1, (spec, fid, s["line"])
        own = [e for e in data[stems[0]]["entries"]
               if e["line"] == s["line"] and (e["fragment"]["spec"], e["fragment"]["id"]) == (shape, fid)]
        assert own, (spec, fid, s["library"], s["line"])
    assert run("validate", SPECS).code == 0


@pytest.mark.parametrize("old, new, col, says", [
    ('        line: 434\n', '        line: 437\n', 15, f"cute-gmma has no entry at line 437 of {CUTE_GMMA}"),
    ('name: "SM90::GMMA::CLayout_64xN"', 'name: "SM90::GMMA::CLayout_64x32"', 15,
     f"the entry at line 434 of {CUTE_GMMA} is CLayout_64xN, which this source's name SM90::GMMA::CLayout_64x32 "
     "does not end with"),
])
def test_a_wrong_line_or_name_is_said_so_before_the_fragment(copy, run, old, new, col, says):
    # m64nNk32's D, which cites the template every D shares: a line or name edit is the pin's error,
    # not the fragment's
    path, line, _ = copy("m64nNk32.yaml", old, new)
    err = _refused(run, path)
    assert f"{path}:{line}:{col}: error: {says}" in err and "expected an entry of" not in err, err
