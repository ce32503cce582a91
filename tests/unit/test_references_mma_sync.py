"""Warp-level mma layouts transcribed from sources no entry cited before: JAX Mosaic GPU's mma.sync
layouts (jax-mosaic_gpu_mma.yaml: MMALayouts of mma.py, warp 0 of the warpgroup's tile), MLIR's
operand formula at the other shapes nvgpu.mma.sync admits (m16n8k8 .f16, m16n8k16 .s8, m16n8k32 .s4)
and CuTe's SM120 sparse m16n8k64 A (the one published mma.sp A): each proved equal, and a misread
of each refuted or refused."""
import json
import os

import pytest

from checker.references import load
from checker.references.mosaic import Replicated, tiled
from checker.spec.load import load_spec
from conftest import ROOT, SPECS

DATA = os.path.join(ROOT, "checker", "references", "data")
JAX = os.path.join(DATA, "jax-mosaic_gpu_mma.yaml")
MLIR = os.path.join(DATA, "mlir-nvgpu_mmautils.yaml")
SM120 = os.path.join(DATA, "cutlass-mma_traits_sm120_sparse.yaml")


def _verdicts(run, path) -> dict:
    r = run("conformance", SPECS, "--references", str(path), "--format", "json")
    assert r.code == 0, r.out[-1500:] + r.err
    return {(e["name"], e["spec"], e["fragment"]): e["verdict"] for e in json.loads(r.out)["entries"]}


def _edited(tmp_path, path, old, new, count=1):
    text = open(path, encoding="utf-8").read()
    assert old in text, old
    data = tmp_path / os.path.basename(path)
    data.write_text(text.replace(old, new, count), encoding="utf-8")
    return data


def test_mosaic_gpu_mma_sync_layouts_are_proved_for_every_instruction_it_issues(run):
    """mma.py issues m16n8k{256 // bits}: k16 for 16-bit floats, k32 for 8-bit, k64 for i4; its
    lhs, rhs and acc for each are proved equal to A, B and C."""
    refs = load.load_file(JAX)
    assert {(r.spec, r.fragment) for r in refs} == {
        ("m16n8k16", "A.f16"), ("m16n8k16", "B.f16"), ("m16n8k16", "C.float"),
        ("m16n8k32", "A.i8"), ("m16n8k32", "B.i8"), ("m16n8k32", "C.s32"),
        ("m16n8k64", "A.i4"), ("m16n8k64", "B.i4"), ("m16n8k64", "C.s32")}
    assert all(r.repo == "jax-ml/jax" and r.commit.startswith("cec06d116c05") and r.line in (40, 47, 54)
               and r.encoding.fields["warp"] == 0 for r in refs)
    got = _verdicts(run, JAX)
    assert len(got) == 9 and set(got.values()) == {"equal"}, got


@pytest.mark.parametrize("old, new, says", [
    # warp 1's piece of A is rows 16-31 of the warpgroup's tile, not the fragment's
    ("      array: [64, 16]\n      warp: 0", "      array: [64, 16]\n      warp: 1",
     "MMALayouts(f16, bf16).lhs (current) vs m16n8k16 A.f16: differs at 256 of 256 points; the first: thread 0 a0: "
     "the spec puts it at A[0][0], the candidate gives A[16][0]"),
    # B's lanes read in the other order: n the minor lane dimension
    ("      lane_dims: [-3, -4]", "      lane_dims: [-4, -3]",
     "MMALayouts(f16, bf16).rhs (current) vs m16n8k16 B.f16: differs"),
])
def test_a_misread_mosaic_gpu_mma_layout_is_refuted(run, tmp_path, old, new, says):
    data = _edited(tmp_path, JAX, old, new)
    r = run("conformance", SPECS, "--references", str(data))
    assert r.code == 1 and says in r.out, r.out[-2000:]


@pytest.mark.parametrize("old, new, field, says", [
    # the accumulator laid out over the fragment's 16 x 8 alone: its 64-row tile does not apply to it
    ("      array: [64, 8]\n", "", "tiling", "does not apply to C.float's 16 x 8"),
    # B replicated over two warps only: TiledLayout's warp dimensions must span a warpgroup
    ("{replicated: 4}, -5]", "{replicated: 2}, -5]", "warp_dims", "the warp dimensions (Replicated(2), -5) span 2 warps"),
    # what TiledLayout.__post_init__ refuses, whatever the array: lanes that are not a warp's 32,
    ("      lane_dims: [-3, -4]", "      lane_dims: [-3, -4, -6]", "lane_dims", "span 64 lanes, not the 32"),
    # a dimension partitioned twice, one the tiling does not make, a tiling of rising rank
    ("      lane_dims: [-3, -4]", "      lane_dims: [-3, -2]", "vector_dim", "dimension -2 is partitioned twice"),
    ("      vector_dim: -2", "      vector_dim: -9", "vector_dim", "expected a dimension in -6..-1"),
    ("tiling: [[16, 8], [8, 8], [2, 1]]", "tiling: [[16, 8], [8, 8], [2, 1, 1]]", "tiling", "a higher rank"),
    # an array larger than any fragment (a 4096 x 4096 grid had been laid out cell by cell)
    ("      array: [64, 8]\n", "      array: [4096, 4096]\n", "array", "at most 65536 cells"),
])
def test_a_mosaic_gpu_layout_mosaic_would_refuse_is_an_error(run, tmp_path, old, new, field, says):
    """Refused as a malformed data file (exit 3), at the field: these had been the engines' kind of
    error (exit 1, the entry's first line), or no error at all (lanes beyond 32 were compared)."""
    data = _edited(tmp_path, JAX, old, new)
    r = run("conformance", SPECS, "--references", str(data))
    assert r.code == 3 and says in r.err and "Traceback" not in r.err, r.out[-800:] + r.err
    line, col = (int(x) for x in r.err.split(f"{data}:", 1)[1].split(":")[:2])
    text = data.read_text(encoding="utf-8").split("\n")[line - 1]
    assert text.strip().startswith(f"{field}:") and col > text.index(":"), (text, r.err)


def _mma_layouts(bits: int, m_warps: int):
    """MMALayouts(element_type, m_warps=...) of mma.py lines 33-60, as (tiling, warp_dims, lane_dims,
    vector_dim) before canonicalize(), which changes no cell."""
    n_warps = 4 // m_warps
    epr = 32 // bits
    k, sub_k = 8 * epr, 4 * epr
    lhs = (((m_warps * 16, k), (16, sub_k), (8, sub_k), (epr,)), (-7, Replicated(4 // m_warps)), (-3, -2), -1)
    rhs = (((k, n_warps * 8), (sub_k, 8), (epr, 1)), (Replicated(4 // n_warps), -5), (-3, -4), -2)
    acc = (((m_warps * 16, n_warps * 8), (16, 8), (8, 8), (2,)), (-7, -6), (-3, -2), -1)
    return {"A": ((m_warps * 16, k), lhs), "B": ((k, n_warps * 8), rhs), "C": ((m_warps * 16, n_warps * 8), acc)}


@pytest.mark.parametrize("m_warps", [1, 2, 4])
@pytest.mark.parametrize("bits, spec, ids", [
    (16, "m16n8k16", {"A": "A.f16", "B": "B.f16", "C": "C.float"}),
    (8, "m16n8k32", {"A": "A.i8", "B": "B.i8", "C": "C.s32"}),
    (4, "m16n8k64", {"A": "A.i4", "B": "B.i4", "C": "C.s32"}),
])
def test_every_warp_holds_its_instruction_s_fragment_at_every_m_warps(m_warps, bits, spec, ids):
    """The entries compare warp 0 at m_warps = 4; at m_warps 1, 2 and 4 each of the four warps holds,
    in the piece of the tile it issues the instruction on, the fragment's cells (translated to that
    piece), so the entries' choice loses nothing."""
    from checker.formula.evaluate import cells
    from checker.spec.reading import materialize

    s = load_spec(os.path.join(SPECS, f"{spec}.yaml"))
    for operand, (shape, layout) in _mma_layouts(bits, m_warps).items():
        f = s.fragment(ids[operand])
        r = materialize(f)
        points = [(t, i) for t in range(32) for i in range(r.n)]
        want = dict(zip(points, zip(*cells(r.layout, points))))
        for warp in range(4):
            got = tiled(shape, *layout, warp=warp)
            top, left = min(c[0] for c in got.values()), min(c[1] for c in got.values())
            assert {p: (row - top, col - left) for p, (row, col) in got.items()} == want, (operand, warp)


def test_mlir_s_formula_is_proved_at_every_shape_nvgpu_mma_sync_admits(run):
    got = _verdicts(run, MLIR)
    named = {(name, frag) for name, _, frag in got}
    for name, frag in (("A vector<16x8xf16> (mma.sync m16n8k8)", "A.f16"), ("B vector<8x8xf16> (mma.sync m16n8k8)", "B.f16"),
                       ("C vector<16x8xf16> (mma.sync m16n8k8)", "C.float"), ("C vector<16x8xf32> (mma.sync m16n8k8)", "C.float"),
                       ("A vector<16x16xi8> (mma.sync m16n8k16)", "A.i8"), ("B vector<8x16xi8> (mma.sync m16n8k16)", "B.i8"),
                       ("C vector<16x8xi32> (mma.sync m16n8k16)", "C.int"),
                       ("A vector<16x32xi4> (mma.sync m16n8k32)", "A.i4"), ("B vector<8x32xi4> (mma.sync m16n8k32)", "B.i4")):
        assert (f"getLaneIdAndValueIdToOperandCoord, {name}", frag) in named, name
    assert set(got.values()) == {"equal"}
    specs = {(r.spec, r.fragment) for r in load.load_file(MLIR)}
    assert {("m16n8k8", "A.f16"), ("m16n8k16", "C.int"), ("m16n8k32", "B.i4")} <= specs


def test_mlir_s_b_read_untransposed_is_refuted(run, tmp_path):
    # MLIR's B is N x K: without `transposed`, its (row, col) is read as the document's B[k][n]
    old = """    note: "i8 operand: vector<4xi8> per 32-bit register, 128-bit lines"
    encoding:
      kind: formula
      elements: 4
      transposed: true"""
    data = _edited(tmp_path, MLIR, old, old.replace("\n      transposed: true", ""))
    r = run("conformance", SPECS, "--references", str(data))
    assert r.code == 1 and "B vector<8x16xi8> (mma.sync m16n8k16) (current) vs m16n8k16 B.i8: differs" in r.out


def test_cute_s_sm120_sparse_a_is_proved_and_read_dense_refuted(run, tmp_path):
    [ref] = load.load_file(SM120)
    assert (ref.spec, ref.fragment, ref.line, ref.encoding.fields["sparse"]) == ("m16n8k64", "A.sp.i8", 199, 2)
    got = _verdicts(run, SM120)
    assert list(got.values()) == ["equal"]
    # read without sparse_elem<2, T>: 32 values for 16 stored elements, at the uncompressed columns
    data = _edited(tmp_path, SM120, "      sparse: 2\n", "")
    r = run("conformance", SPECS, "--references", str(data))
    assert r.code == 1 and "SM120_SPARSE_16x8x64_TN::ALayout (current) vs m16n8k64 A.sp.i8: differs" in r.out
    # the K-half stride misread as 256 (columns 16..31 where the document has 32..63)
    data = _edited(tmp_path, SM120, "Stride<_16,_8,_512>", "Stride<_16,_8,_256>")
    r = run("conformance", SPECS, "--references", str(data))
    assert r.code == 1 and "vs m16n8k64 A.sp.i8: differs" in r.out


def test_a_sparse_cute_layout_compresses_k_whether_or_not_it_is_transposed():
    """sparse_elem<S, T> compresses K, the tile's column (A's M x K, B's N x K). A transposed tile
    (CuTe's B) had its matrix column divided instead, N where K was meant: every stored element's
    logical values then disagreed and the layout held nothing. The same layout read as a transposed
    tile holds the transposed cells, each of them."""
    from checker.compare import candidates, cute
    from checker.errors import SourceSpan
    from checker.source import plain

    [ref] = load.load_file(SM120)
    layout = ref.encoding.fields["layout"]
    assert layout is not None and ref.encoding.fields["sparse"] == 2
    points = [(t, i) for t in range(32) for i in range(layout.values // 2)]
    a = candidates.Cute(layout, (16, 64), sparse=2).cells(points)
    b = candidates.Cute(layout, (16, 64), transposed=True, sparse=2).cells(points)
    assert None not in a and len(set(a)) == len(points)
    assert b == [(c, r) for r, c in a]
    assert [candidates.Cute(layout, (16, 64), transposed=True, sparse=2)._stored(t, i) for t, i in points[:40]] == b[:40]
    # logical values split over two K-runs hold nothing: the stride of K's pairs misread
    bad = cute.parse(plain("((4,8),(8,2,2)):((128,1),(32,8,512))", SourceSpan("t", 1, 1)))
    assert candidates.Cute(bad, (16, 64), transposed=True, sparse=2).cells([(0, 0)]) == [None]
