"""The reference model: random matrices scattered into registers by the spec, executed, gathered
back, equal the host's A.B + C for every variant of the seeds; a wrong layout breaks that."""
import dataclasses
import glob
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from conftest import CASES, SPECS

from checker.semantics import inputs, types
from checker.semantics.execute import execute, geometries, shapes
from checker.semantics.registers import ModelError, pack, unpack
from checker.semantics.variants import variants
from checker.spec.load import load_spec

VARIANTS = [v for f in sorted(glob.glob(os.path.join(SPECS, "m*.yaml"))) for v in variants(load_spec(f))]


def test_every_variant_is_enumerated():
    ids = {v.instruction for v in VARIANTS}
    assert len(ids) == len(VARIANTS) == 70
    assert sum(v.shape in ("m16n8k16", "m16n8k256", "m8n8k32", "m8n8k4") for v in VARIANTS) == 35  # the seeds
    assert "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in ids
    assert "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc" in ids
    assert not any(".e2m1" in i or ".e3m2" in i for i in ids)  # .kind::f8f6f4: not modelled yet
    assert "mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f16" in ids  # .f16 C feeding .f32 D
    assert "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f32" not in ids  # ".ctype .f32 => .dtype .f32"
    assert "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc" in ids
    assert "mma.sync.aligned.m16n8k16.row.col.f16.e5m2.e4m3.f16" in ids


def _round_trip(v, seed, geo=None, user=None):
    """Scatter with `user` geometries (default: the spec's), execute with the spec's, gather."""
    geo = geo or geometries(v)
    user = user or geo
    shp = shapes(v)
    A, B, C = inputs.random_inputs(v, seed)
    d = execute(v, pack(user["A"], A), pack(user["B"], B), pack(user["C"], C), geo)
    D = unpack(user["D"], d, shp["D"])
    return D, inputs.host_product(v, A, B, C)


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.instruction.replace("mma.sync.aligned.", ""))
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2 ** 32))
def test_round_trip_equals_host_product(v, seed):
    D, host = _round_trip(v, seed)
    np.testing.assert_array_equal(D.astype(np.float64), host.astype(np.float64))


def test_a_non_bijective_layout_breaks_the_round_trip():
    # the injective-mask mutant: B.b1 drops its `& 0x1F`, two elements land on one cell
    spec = load_spec(os.path.join(CASES, "mutants", "injective-mask", "m16n8k256.yaml"))
    v = variants(spec)[0]
    with pytest.raises(ModelError, match=r"B\.b1: cell \[\d+\]\[\d+\] is held by 2 elements"):
        _round_trip(v, 1)


def test_a_bijective_but_wrong_layout_breaks_the_round_trip():
    """A user who swaps c0/c1 with c2/c3 (rows g and g+8) still scatters a bijection, but the
    matrices they read back are not A.B + C."""
    v = next(x for x in VARIANTS if x.instruction == "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
    geo = geometries(v)
    g = geo["D"]
    swapped = dataclasses.replace(g, rows=g.rows[:, [2, 3, 0, 1]], cols=g.cols[:, [2, 3, 0, 1]])
    user = dict(geo, C=swapped, D=swapped)
    D, host = _round_trip(v, 3, geo, user)
    assert not np.array_equal(D, host)
    D_ok, _ = _round_trip(v, 3, geo)
    np.testing.assert_array_equal(D_ok, host)


def test_inexact_results_are_refused_not_rounded():
    v = next(x for x in VARIANTS if x.instruction == "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16")
    geo = geometries(v)
    shp = shapes(v)
    A = np.ones((1,) + shp["A"])
    B = np.ones((1,) + shp["B"])
    C = np.full((1,) + shp["C"], 2047.0)  # D = 2063: odd above 2048, between two .f16 values
    with pytest.raises(ModelError, match="needs rounding"):
        execute(v, pack(geo["A"], A), pack(geo["B"], B), pack(geo["C"], C), geo)


@pytest.mark.parametrize("t", sorted(types.BITS))
@given(data=st.data())
@settings(max_examples=30, deadline=None)
def test_bits_round_trip_for_every_type(t, data):
    lo, hi = {"s8": (-128, 127), "u8": (0, 255), "s4": (-8, 7), "u4": (0, 15), "b1": (0, 1),
              "s32": (-2 ** 31, 2 ** 31 - 1)}.get(t, (-8, 8))
    vals = np.array(data.draw(st.lists(st.integers(lo, hi), min_size=1, max_size=16)))
    if t in types.FLOATS:
        vals = vals / 2
    raw = types.to_bits(t, vals)
    assert (raw < (1 << types.BITS[t])).all()
    np.testing.assert_array_equal(types.from_bits(t, raw), vals)


def test_known_bit_patterns():
    assert types.to_bits("f16", [1.0]).tolist() == [0x3C00]
    assert types.to_bits("bf16", [1.0]).tolist() == [0x3F80]
    assert types.to_bits("e4m3", [1.0]).tolist() == [0x38]
    assert types.to_bits("e5m2", [1.0]).tolist() == [0x3C]
    assert types.to_bits("s4", [-1]).tolist() == [0xF]
    assert types.to_bits("s8", [-2]).tolist() == [0xFE]
    with pytest.raises(ValueError):
        types.to_bits("e5m2", [2.25])


def test_f16x2_packs_element_zero_in_the_low_half():
    v = next(x for x in VARIANTS if x.instruction == "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
    g = geometries(v)["A"]
    A = np.zeros((1, 16, 16))
    A[0, 0, 0], A[0, 0, 1] = 1.0, 2.0  # lane 0 holds a0 = A[0][0], a1 = A[0][1]
    regs = pack(g, A)
    assert int(regs[0, 0]) == 0x4000_3C00


def test_simulate_shows_one_round_trip(run):
    r = run("simulate", os.path.join(SPECS, "m8n8k4.yaml"), "--fragment-set", "col.row.f32.f16.f16.f16", "--seed", "5")
    assert r.code == 0, r.err
    assert r.out.startswith("mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f16  (seed 5)")
    assert "A (computation 4), 8x4:" in r.out
    assert "round trip: D gathered from the registers and the host's A.B + C are equal (256 cells)" in r.out
    again = run("simulate", os.path.join(SPECS, "m8n8k4.yaml"), "--fragment-set", "col.row.f32.f16.f16.f16", "--seed", "5")
    assert again.out == r.out


def test_simulate_lists_and_rejects_variants(run):
    r = run("simulate", os.path.join(SPECS, "m16n8k256.yaml"))
    assert r.code == 0 and "row.col.s32.b1.b1.s32.xor.popc" in r.out
    bad = run("simulate", os.path.join(SPECS, "m16n8k256.yaml"), "--fragment-set", "row.col.f32.f16.f16.f32")
    assert bad.code == 2 and "has no variant 'row.col.f32.f16.f16.f32'" in bad.err


def test_simulate_json(run):
    import json

    r = run("simulate", os.path.join(SPECS, "m8n8k32.yaml"), "--fragment-set", "row.col.s32.s4.u4.s32", "--format", "json")
    data = json.loads(r.out)
    assert data["equal"] and data["instruction"] == "mma.sync.aligned.m8n8k32.row.col.s32.s4.u4.s32"
    assert len(data["registers"]["A"]) == 32 and len(data["registers"]["A"][0]) == 1


@pytest.mark.parametrize("c", [2.0 ** -149, 2.0 ** -1074, 3 * 2.0 ** -140])
def test_products_and_an_accumulator_far_apart_in_scale_stay_exact(c):
    """A subnormal C beside zero or normal products once made the int64 scaling overflow
    (OverflowError): where the scale does not fit, the exact rational path answers."""
    from fractions import Fraction

    from checker.semantics.execute import multiply

    v = next(v for v in variants(load_spec(os.path.join(SPECS, "m16n8k8.yaml"))) if v.atype == "f64")
    A, B, C = np.zeros((1, 16, 8)), np.zeros((1, 8, 8)), np.full((1, 16, 8), c)
    D = multiply(v, A, B, C)
    assert all(Fraction(float(x) if not isinstance(x, Fraction) else x) == Fraction(c) for x in D.ravel())
    A[0, 0, 0] = B[0, 0, 0] = 2.0 ** 20
    D = multiply(v, A, B, C)
    assert Fraction(D[0, 0, 0]) == Fraction(2 ** 40) + Fraction(c)


def test_a_type_the_fragment_does_not_hold_is_a_located_model_error():
    """geometry() of a type no table row holds says so at the fragment (a crosscheck turns a
    ModelError into a located result), where it once raised StopIteration."""
    from checker.semantics.registers import geometry

    spec = load_spec(os.path.join(SPECS, "m16n8k16.yaml"))
    f = spec.fragment("A.f16")
    with pytest.raises(ModelError, match=rf"^{f.span}: A\.f16 has no table row of \.s8 \(its types: \.f16, \.bf16\)"):
        geometry(f, "s8")


def test_the_model_runs_mma_shapes_only():
    from checker.semantics.execute import _mnk

    assert _mnk("m16n8k16") == (16, 8, 16)
    with pytest.raises(ModelError, match="mMnNkK"):
        _mnk("ldmatrix.m8n8")
