"""The sparse wgmma probe's reference model and crosscheck, no GPU: D = A_decompressed . B + C, the
metadata choosing which columns of A each stored element is (checked here against a plain loop over
9.7.15.6.1's chunks); synthetic sparse dumps agree; a dump with one D element moved, or with a
metadata bit flipped, disagrees and says where."""
import io

import numpy as np
import pytest

from checker.cli import main
from checker.probe import wgmma_check, wgmma_dump, wgmma_model, wgmma_patterns, wgmma_run
from checker.probe import wgmma_sp as sp
from checker.results import PROVED, REFUTED
from checker.spec.load import load_spec

SPARSE = ["specs/m64nNk16.sp.yaml", "specs/m64nNk32.sp.yaml", "specs/m64nNk64.sp.yaml"]


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


def _pick(path, **want):
    spec = load_spec(path)
    view = sp.joined(spec, path)
    v = next(v for v in sp.variants(spec, path) if all(getattr(v, k) == x for k, x in want.items()))
    return v, view


CASES = [("specs/m64nNk32.sp.yaml", dict(n=8, dtype="f32", atype="f16", a_shared=False)),
         ("specs/m64nNk16.sp.yaml", dict(n=256, a_shared=True)),
         ("specs/m64nNk64.sp.yaml", dict(n=8, dtype="s32", atype="s8", btype="u8", a_shared=False))]


@pytest.mark.parametrize("path,want", CASES)
def test_the_model_is_a_plain_loop_over_the_chunks(path, want):
    """Every CTA's D against D[m][n] = sum over stored elements of A[m][c] * B[col(c)][n] + C, with
    col(c) the chunk's first column plus the index the metadata word names (2:4: two 2-bit indices
    per 4-bit group; .tf32 1:2: 0b0100 the first, 0b1110 the second of a two-wide chunk)."""
    v, view = _pick(path, **want)
    _, arrays = wgmma_patterns.build(v, view, seed=3)
    d = wgmma_model.predict(v, view, arrays)
    frag = wgmma_model.fragments(v, view)
    kc = wgmma_patterns.k_of(v)
    if v.a_shared:
        a = wgmma_model.shared_matrix(v, arrays["a"], v.atype, v.m)
    else:
        a = wgmma_model.scatter(frag["A"], wgmma_model.values(v.atype, wgmma_model.unpack(frag["A"], arrays["a"])), 64, kc)
    b = wgmma_model.shared_matrix(v, arrays["b"], v.btype, v.n, "b")  # (C, N, K)
    assert b.shape[-1] == 2 * kc
    dg = frag["D"]
    c = wgmma_model.scatter(dg, wgmma_model.values(v.dtype, wgmma_model.unpack(dg, arrays["d_in"])), 64, v.n)
    got = wgmma_model.scatter(dg, wgmma_model.values(v.dtype, wgmma_model.unpack(dg, d)), 64, v.n)
    for cta in range(len(d)):
        word = int(arrays["meta"][cta, 0])
        assert (arrays["meta"][cta] == word).all()
        nib = word & 15
        want_d = np.where(arrays["scale_d"][cta] != 0, c[cta], 0.0)
        for col in range(kc):
            if v.atype == "tf32":
                logical = 2 * col + {0b0100: 0, 0b1110: 1}[nib]
            else:
                logical = 4 * (col // 2) + ((nib >> (2 * (col % 2))) & 3)
            want_d = want_d + np.outer(a[cta, :, col], b[cta, :, logical])
        assert (got[cta] == want_d).all(), cta
    assert len({int(w) for w in arrays["meta"][:, 0]}) > 1  # the CTAs use different indices


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    where = str(tmp_path_factory.mktemp("wgmma_sp"))
    found = []
    for path, want in CASES:
        v, view = _pick(path, **want)
        found.append((v, view))
    return wgmma_run.record_all(found, where), found


def _check(found, d):
    v, view = next((v, s) for v, s in found if v.id == d.header["variant"])
    return {r.property: r for r in wgmma_check.check_dump(v, view, d)}


def test_synthetic_sparse_dumps_agree(dumps):
    paths, found = dumps
    code, out, err = run("crosscheck", *SPARSE, *[x for p in paths for x in ("--dumps", p)])
    assert code == 0, out + err
    assert f"{len(paths)} agree, 0 disagree" in out and "m64n8k32.sp.f32.f16.f16.a_registers" in out
    for p in paths:
        assert {r.verdict for r in _check(found, wgmma_dump.read(p)).values()} == {PROVED}


def test_a_moved_d_element_disagrees_and_is_located(dumps):
    paths, found = dumps
    d = wgmma_dump.read(paths[0])
    out = d.arrays["d_out"].copy()
    slots = wgmma_patterns.blocks(found[0][0])[0].count  # the first slots CTA
    out[slots, 5, 0], out[slots, 9, 1] = out[slots, 9, 1], out[slots, 5, 0]
    d.arrays["d_out"] = out
    res = _check(found, d)
    assert res["predicts"].verdict == REFUTED and res["predicts"].counterexample["cta"] == slots
    assert res["predicts"].counterexample["thread"] == 5 and "(slots)" in res["predicts"].message
    assert res["identifies-D"].verdict == REFUTED and "thread 5 (warp 0, %laneid 5) d0" in res["identifies-D"].message


def test_a_flipped_metadata_bit_disagrees_at_its_cta(dumps):
    paths, found = dumps
    for p in paths:
        d = wgmma_dump.read(p)
        v = next(v for v, _ in found if v.id == d.header["variant"])
        last = len(d.arrays["meta"]) - 1  # a random CTA: its A and B are both dense random
        nib = int(d.arrays["meta"][last, 0]) & 15
        # one bit flipped to other meaningful indices (.tf32 has two values, 2 bits apart: the other one)
        near = sorted((bin(n ^ nib).count("1"), n) for n in range(16) if sp.indices_of(v.atype, n) and n != nib)
        assert near[0][0] == (2 if v.atype == "tf32" else 1)
        flipped = near[0][1]
        meta = d.arrays["meta"].copy()
        meta[last] = sp.metadata_word(v.atype, sp.indices_of(v.atype, flipped))  # the model reads other columns
        d.arrays["meta"] = meta
        res = _check(found, d)["predicts"]
        assert res.verdict == REFUTED and res.counterexample["cta"] == last, (p, res.message)
        meta[last, 17] ^= 1 << 4  # one thread's word differs: the model cannot place it, and says so
        res = _check(found, d)["predicts"]
        assert res.verdict == REFUTED and f"CTA {last}: sp-meta is not one meaningful" in res.message


def test_a_sparse_dump_without_its_metadata_is_malformed(dumps):
    paths, found = dumps
    d = wgmma_dump.read(paths[1])
    del d.arrays["meta"]
    (r,) = wgmma_check.check_dump(*next((v, s) for v, s in found if v.id == d.header["variant"]), d)
    assert r.property == "dump" and "arrays.meta is missing" in r.message
