"""The wgmma probe without a GPU: every kernel of the wgmma specs (A from registers and from
shared memory, B through a no-swizzle descriptor) assembles for sm_90a and its SASS holds exactly
one warpgroup mma of the kind its types call for; the kernels follow the fence / commit_group /
wait_group protocol; a kernel ptxas rejects is reported, naming it, with exit 1."""
import io
import json

import pytest
from wgmma_sass import needs_ptxas, skip_without_nvdisasm, the_one_warpgroup_mma

from checker.cli import main
from checker.probe import wgmma_ptx as wx
from checker.spec.load import load_spec

WGMMA_SPECS = ["specs/m64nNk8.yaml", "specs/m64nNk16.yaml", "specs/m64nNk32.yaml", "specs/m64nNk256.yaml"]


def _probe(*args):
    out, err = io.StringIO(), io.StringIO()
    code = main(["probe", *args], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def compiled():
    """One --compile-only run over every wgmma spec for sm_90a, shared by the tests below."""
    code, out, err = _probe(*WGMMA_SPECS, "--compile-only", "--arch", "sm_90a", "--format", "json")
    return code, json.loads(out), err


def test_the_variants_are_every_type_combination_at_every_n():
    got = {p: wx.variants(load_spec(p), p) for p in WGMMA_SPECS}
    # .tf32 32 N; .f16 -> .f16/.f32 and .bf16 -> .f32, 32 N each; fp8 2 x 2 x 2 dtypes x 32 N, the four
    # 8-bit integer pairs at the 18 N of the .s32 row; .b1 at its 18 N; each with A from registers and shared;
    # then every type combination again at its smallest and largest N with each of the 3 swizzle modes
    assert [len(v) for v in got.values()] == [2 * 32 + 12, 2 * 3 * 32 + 3 * 12, 2 * (8 * 32 + 4 * 18) + 12 * 12,
                                              2 * 18 + 12]
    swizzled = [v for vs in got.values() for v in vs if v.swizzle != "none"]
    assert {(v.n, v.swizzle) for v in swizzled if v.atype == "b1"} == {(n, m) for n in (8, 256) for m in ("32B", "64B", "128B")}
    k32 = {(v.atype, v.btype, v.dtype) for v in got["specs/m64nNk32.yaml"]}
    assert ("e5m2", "e4m3", "f16") in k32 and ("u8", "s8", "s32") in k32 and ("s8", "s8", "f32") not in k32
    s32_n = sorted({v.n for v in got["specs/m64nNk32.yaml"] if v.dtype == "s32"})
    assert s32_n == [8, 16, 24, 32] + list(range(48, 257, 16))


def test_a_kernel_follows_the_async_protocol():
    v = next(v for v in wx.variants(load_spec("specs/m64nNk16.yaml")) if v.n == 256 and v.a_shared and v.dtype == "f16")
    text = wx.generate(v)
    order = [text.index(s) for s in ("fence.proxy.async.shared::cta;", "bar.sync 0;", "wgmma.fence.sync.aligned;",
                                     v.instruction + " ", "wgmma.commit_group.sync.aligned;",
                                     "wgmma.wait_group.sync.aligned 0;", "st.global")]
    assert order == sorted(order)
    # A through its descriptor, then the four immediates of the a-desc .f16 form; D is N/4 .f16x2 registers
    assert "{%d0, %d1, " in text and "%d63}, %descA, %descB, %p1, 1, 1, 0, 0;" in text
    # LBO 128 and SBO 256 bytes, encoded >> 4, swizzle 0: (8 << 16) | (16 << 32)
    assert f"or.b64 %descB, %descB, {(8 << 16) | (16 << 32)};" in text
    r = next(v for v in wx.variants(load_spec("specs/m64nNk256.yaml")) if not v.a_shared)
    assert "{%a0, %a1, %a2, %a3}, %descB, %p1;" in wx.generate(r) and ".and.popc" in r.instruction


@needs_ptxas
def test_every_wgmma_kernel_assembles_for_sm_90a_with_its_warpgroup_mma(compiled):
    code, rows, err = compiled
    assert code == 0, err
    assert len(rows) == 1152 and all(r["arch"] == "sm_90a" for r in rows)
    assert [r for r in rows if r["result"] != "assembled"] == []
    assert sum(r["a_source"] == "shared" for r in rows) == 576
    assert sum("_sw" in r["kernel"] for r in rows) == 204
    skip_without_nvdisasm()
    kinds = {}
    for r in rows:
        kind = the_one_warpgroup_mma(r, sparse=False)
        kinds.setdefault(kind, set()).add(r["instruction"].split(".")[6] if "b1" not in r["instruction"] else "b1")
        assert "WARPGROUP.ARRIVE" in r["sass"]["opcodes"] and "WARPGROUP.DEPBAR.LE" in r["sass"]["opcodes"]
    assert kinds == {"HGMMA": {"f16", "bf16", "tf32"}, "QGMMA": {"e4m3", "e5m2"}, "IGMMA": {"s8", "u8"}, "BGMMA": {"b1"}}


def _row(opcodes, instruction="wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", sass_ok=True):
    return {"kernel": "k", "instruction": instruction, "sass": {"opcodes": opcodes}, "sass_ok": sass_ok}


SPARSE = "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16"


def test_the_shared_sass_check_fails_a_kernel_without_exactly_its_one_warpgroup_mma():
    """The check both wgmma probe tests use (wgmma_sass.py), on rows no ptxas made: it passes only
    one warpgroup mma of the instruction's shape, dense or .SP as the instruction is."""
    assert the_one_warpgroup_mma(_row({"HGMMA.64x8x16.F32": 1, "WARPGROUP.ARRIVE": 1}), sparse=False) == "HGMMA"
    assert the_one_warpgroup_mma(_row({"HGMMA.SP.64x8x32.F32": 1}, SPARSE), sparse=True) == "HGMMA"
    for row, sparse in ((_row({}), False),  # none
                        (_row({"HGMMA.64x8x16.F32": 2}), False),  # two
                        (_row({"HGMMA.64x8x16.F32": 1, "QGMMA.64x8x16.F32": 1}), False),
                        (_row({"HGMMA.64x8x16.F32": 1}, sass_ok=False), False),  # the probe's check failed
                        (_row({"HGMMA.64x16x16.F32": 1}), False),  # another N
                        (_row({"HGMMA.64x8x32.F32": 1}), False),  # another K
                        (_row({"HGMMA.SP.64x8x16.F32": 1}), False),  # sparse for a dense instruction
                        (_row({"HGMMA.64x8x32.F32": 1}, SPARSE), True)):  # dense for a sparse one
        with pytest.raises(AssertionError):
            the_one_warpgroup_mma(row, sparse)


@needs_ptxas
def test_a_kernel_ptxas_rejects_is_named_and_fails(monkeypatch):
    from checker.probe import wgmma_build

    real = wgmma_build.module
    # a shape the document does not have: ptxas rejects it, the module and then that kernel alone
    monkeypatch.setattr(wgmma_build, "module", lambda vs, c: real(vs, c).replace("m64n8k8.", "m64n4k8."))
    monkeypatch.setattr(wgmma_build, "generate", lambda v: wx.generate(v).replace("m64n8k8.", "m64n4k8."))
    code, out, err = _probe("specs/m64nNk8.yaml", "--compile-only", "--arch", "sm_90a")
    assert code == 1, out + err
    assert "ptxas (sm_90a) rejects wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 (A from registers)" in out
    assert "68 assembled, 8 rejected" in out  # N = 8: no swizzle and the 3 swizzle modes, A from both


def test_without_sm_90a_the_wgmma_kernels_are_skipped_saying_why():
    code, out, err = _probe("specs/m64nNk256.yaml", "--compile-only", "--arch", "sm_90", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == 48 and {r["result"] for r in rows} == {"skipped"}
    assert {r["message"] for r in rows} == {"needs sm_90a (--arch sm_90a)"}


def test_emit_ptx_writes_every_kernel_with_a_manifest(tmp_path):
    code, out, err = _probe("specs/m64nNk256.yaml", "--emit-ptx", str(tmp_path))
    assert code == 0, err
    manifest = json.loads((tmp_path / "wgmma-manifest.json").read_text())
    assert len(manifest) == 48 and {m["target"] for m in manifest} == {"sm_90a"}
    sw = next(m for m in manifest if m["descriptor"]["swizzle"] == "128B" and m["a_source"] == "shared")
    assert sw["descriptor"]["sbo_bytes"] == 1024 and sw["a_bytes"] == 64 * 128 and sw["descriptor"]["high_bits"].startswith("0x40")
    for m in manifest:
        text = (tmp_path / m["ptx"]).read_text()
        assert f".entry {m['kernel']}(" in text and m["instruction"] in text and ".target sm_90a" in text


def test_without_a_gpu_the_run_says_what_it_needs():
    code, out, err = _probe("specs/m64nNk8.yaml")
    assert code == 2 and "cuda-python" in err and "Traceback" not in err


def test_a_swizzled_kernel_aligns_its_buffers_and_names_the_mode_in_its_descriptors():
    v = next(v for v in wx.variants(load_spec("specs/m64nNk32.yaml")) if v.swizzle == "64B" and v.a_shared and v.n == 256)
    text = wx.generate(v)
    assert ".shared .align 1024 .b8 smem_b[16384];" in text and ".shared .align 1024 .b8 smem_a[4096];" in text
    # mode 2 (64B) in bits 63-62, SBO 512 >> 4 = 32, LBO "assumed 1"
    assert text.count("or.b64 %descB, %descB, 0x8000002000010000;") == 1 and "%descA, %descA, 0x8000002000010000;" in text
    assert v.id.endswith(".swizzle_64B") and wx.kernel_name(v).endswith("_sw64")
