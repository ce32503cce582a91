"""The sparse wgmma probe kernels (wgmma.mma_async.sp, 9.7.15.6.3) without a GPU: every type
combination of the sparse specs at the smallest and largest N, A from registers and from shared
memory, assembles for sm_90a and its SASS holds exactly one sparse warpgroup mma (HGMMA.SP,
QGMMA.SP, IGMMA.SP) of the kind its types call for; the dense kernels keep their names and count."""
import io
import json

import pytest
from test_wgmma_probe import WGMMA_SPECS
from wgmma_sass import needs_ptxas, skip_without_nvdisasm, the_one_warpgroup_mma

from checker.cli import main
from checker.probe import wgmma_ptx as wx
from checker.probe import wgmma_sp as sp
from checker.spec.load import load_spec

SPARSE_SPECS = ["specs/m64nNk16.sp.yaml", "specs/m64nNk32.sp.yaml", "specs/m64nNk64.sp.yaml"]


def _probe(*args):
    out, err = io.StringIO(), io.StringIO()
    code = main(["probe", *args], out, err)
    return code, out.getvalue(), err.getvalue()


def _variants():
    return {p: sp.variants(load_spec(p), p) for p in SPARSE_SPECS}


def test_the_sparse_variants_are_every_type_combination_at_the_end_ns():
    got = _variants()
    # .tf32 1 combination; .f16 -> .f16/.f32 and .bf16 -> .f32: 3; fp8 2 x 2 x 2 dtypes and the four 8-bit
    # integer pairs: 12; each at 2 N with A from registers and shared memory
    assert [len(v) for v in got.values()] == [1 * 4, 3 * 4, 12 * 4]
    assert {v.n for vs in got.values() for v in vs} == {8, 256}
    assert {v.d_spec for v in got["specs/m64nNk16.sp.yaml"]} == {"specs/m64nNk8.yaml"}
    assert {v.d_spec for v in got["specs/m64nNk64.sp.yaml"]} == {"specs/m64nNk32.yaml"}
    # every N of the dense D rows is there on request: the .s32 row has 18
    every = sp.variants(load_spec(SPARSE_SPECS[2]), SPARSE_SPECS[2], every_n=True)
    assert len({v.n for v in every if v.dtype == "s32"}) == 18 and len(every) == 2 * (8 * 32 + 4 * 18)
    names = [wx.kernel_name(v) for vs in got.values() for v in vs]
    assert len(set(names)) == len(names) and all(n.startswith("wgmma_probe_sp_") for n in names)


def test_a_sparse_kernel_passes_meta_and_selector_and_reads_64_bytes_of_b():
    v = next(v for v in _variants()["specs/m64nNk32.sp.yaml"] if v.a_shared and v.dtype == "f16" and v.n == 256)
    text = wx.generate(v)
    assert ".version 8.2" in text and ".param .u64 p_meta" in text and "ld.global.b32 %meta," in text
    assert "wgmma.mma_async.sp.sync.aligned.m64n256k32.f16.f16.f16 {%d0, " in text
    assert "%d63}, %descA, %descB, %meta, 0, %p1, 1, 1, 0, 0;" in text
    # B: LBO 128, SBO 8 x 64 = 512 bytes (encoded >> 4); A (compressed, 32 bytes of K): the dense 128 / 256
    assert f"or.b64 %descB, %descB, {(8 << 16) | (32 << 32)};" in text
    assert f"or.b64 %descA, %descA, {(8 << 16) | (16 << 32)};" in text
    assert f"smem_b[{256 * 64}]" in text and f"smem_a[{64 * 32}]" in text
    order = [text.index(s) for s in ("fence.proxy.async.shared::cta;", "wgmma.fence.sync.aligned;", v.instruction + " ",
                                     "wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 0;")]
    assert order == sorted(order)
    mixed = next(v for v in _variants()["specs/m64nNk64.sp.yaml"] if (v.atype, v.btype) == ("u8", "s8"))
    assert mixed.ptx_version == "8.4" and "{%a0, %a1, %a2, %a3}, %descB, %meta, 0, %p1;" in wx.generate(mixed)


def test_the_metadata_words_name_the_same_chunk_indices_everywhere():
    assert sp.metadata_word("f16", (0, 1)) == 0x44444444 and sp.metadata_word("tf32", (1,)) == 0xEEEEEEEE
    assert sp.indices_of("e4m3", 0b1101) == (1, 3) and sp.indices_of("s8", 0b0101) is None  # 9.7.15.6.1: invalid
    assert sp.indices_of("tf32", 0b0100) == (0,) and sp.indices_of("tf32", 0b1000) is None
    # any two distinct indices, in either order: wgmma.mma_async.sp has no ::ordered_metadata
    assert sp.indices_of("f16", 0b0111) == (3, 1) and sp.indices_of("f16", 0b1010) is None
    cols = sp.logical_columns("f16", 16)
    assert list(cols[(1, 3)][:4]) == [1, 3, 5, 7] and list(cols[(3, 1)][:4]) == [3, 1, 7, 5] and len(cols) == 12
    assert list(sp.logical_columns("tf32", 8)[(1,)]) == [1, 3, 5, 7, 9, 11, 13, 15]


@pytest.fixture(scope="module")
def compiled():
    code, out, err = _probe(*SPARSE_SPECS, "--compile-only", "--arch", "sm_90a", "--format", "json")
    return code, json.loads(out), err


@needs_ptxas
def test_every_sparse_kernel_assembles_with_one_sparse_warpgroup_mma(compiled):
    code, rows, err = compiled
    assert code == 0, err
    assert len(rows) == 64 and [r for r in rows if r["result"] != "assembled"] == []
    assert all(".mma_async.sp." in r["instruction"] for r in rows)
    skip_without_nvdisasm()
    kinds = {}
    for r in rows:
        kind = the_one_warpgroup_mma(r, sparse=True)
        kinds.setdefault(kind, set()).add(r["instruction"].split(".")[7])
    assert kinds == {"HGMMA": {"f16", "bf16", "tf32"}, "QGMMA": {"e4m3", "e5m2"}, "IGMMA": {"s8", "u8"}}


@needs_ptxas
def test_a_dense_opcode_for_a_sparse_kernel_fails_the_sass_check():
    from checker.probe.wgmma_build import Built

    v = sp.variants(load_spec(SPARSE_SPECS[1]), SPARSE_SPECS[1])[0]
    dense = Built(v, True, "assembled", {"opcodes": {"HGMMA.64x8x32.F32": 1}})
    sparse = Built(v, True, "assembled", {"opcodes": {"HGMMA.SP.64x8x32.F32": 1}})
    assert dense.sass_ok is False and sparse.sass_ok is True


@needs_ptxas
def test_the_minimum_ptx_version_is_8_2_and_8_4_for_mixed_integers():
    from checker.probe.assemble import assemble, ptxas

    vs = _variants()
    mixed = next(v for v in vs[SPARSE_SPECS[2]] if (v.atype, v.btype) == ("s8", "u8"))
    for v in (vs[SPARSE_SPECS[0]][0], vs[SPARSE_SPECS[2]][-1], mixed):
        ok, _, _ = assemble(ptxas(), wx.generate(v), "90a", "k")
        older = wx.generate(v).replace(f".version {v.ptx_version}", ".version 8.1" if v.ptx_version == "8.2" else ".version 8.3")
        bad, message, _ = assemble(ptxas(), older, "90a", "k")
        assert ok and not bad and "requires PTX ISA .version" in message, message


def test_the_dense_kernels_keep_their_names_and_count():
    dense = [v for p in WGMMA_SPECS for v in wx.variants(load_spec(p), p)]
    assert len(dense) == 1152 and not any(v.sparse for v in dense)
    assert not any(wx.kernel_name(v).startswith("wgmma_probe_sp_") for v in dense)
    assert "%meta" not in wx.generate(dense[0]) and "p_meta" not in wx.generate(dense[-1])
