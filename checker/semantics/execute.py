"""What one mma instruction computes for a whole warp: register images in, register images out.

    D = A x B + C      per MMA computation of the warp, exactly

Floating types are multiplied and summed as exact rationals; the result must be exactly
representable in .dtype, or the model refuses (it predicts only what needs no rounding: the
inputs are chosen so, see checker.semantics.inputs). Integers wrap modulo 2**32 as .s32 without
.satfinite does. .b1 computes popc(a XOR b) or popc(a AND b) summed along K, plus C.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from checker.semantics.registers import ModelError, geometry, pack, unpack
from checker.semantics.types import FLOATS


def geometries(v) -> dict:
    return {op: geometry(v.fragment(op), v.type_of(op)) for op in "ABCD"}


def shapes(v) -> dict:
    m, n, k = _mnk(v.shape)
    return {"A": (m, k), "B": (k, n), "C": (m, n), "D": (m, n)}


def _mnk(shape: str):
    import re

    return tuple(int(x) for x in re.fullmatch(r"m(\d+)n(\d+)k(\d+)", shape).groups())


def multiply(v, A, B, C) -> np.ndarray:
    """Exact D for matrices with a leading computation axis."""
    if v.atype == "b1":
        a = A.astype(np.int64)[:, :, :, None]
        b = B.astype(np.int64)[:, None, :, :]
        bits = (a ^ b) if v.op == "xor" else (a & b)
        return _wrap(bits.sum(axis=2) + C.astype(np.int64))
    if v.atype in FLOATS:
        frac = np.vectorize(Fraction, otypes=[object])
        out = np.empty(C.shape, dtype=object)
        for g in range(C.shape[0]):
            out[g] = frac(A[g]).dot(frac(B[g])) + frac(C[g])
        return out
    return _wrap(np.einsum("gmk,gkn->gmn", A.astype(np.int64), B.astype(np.int64)) + C.astype(np.int64))


def _wrap(x):
    return ((x + (1 << 31)) % (1 << 32)) - (1 << 31)


def exact_values(v, D) -> np.ndarray:
    """Exact results as float64 (floats) or int64, refusing any that .dtype cannot hold exactly."""
    if D.dtype != object:
        return D.astype(np.int64)
    out = np.array([float(x) for x in D.ravel()]).reshape(D.shape)
    if any(Fraction(f) != x for f, x in zip(out.ravel(), D.ravel())):
        raise ModelError("a result is not exactly representable in float64; choose exact inputs")
    return out


def execute(v, a_regs, b_regs, c_regs, geo=None) -> np.ndarray:
    geo = geo or geometries(v)
    shp = shapes(v)
    A = unpack(geo["A"], a_regs, shp["A"])
    B = unpack(geo["B"], b_regs, shp["B"])
    C = unpack(geo["C"], c_regs, shp["C"])
    D = exact_values(v, multiply(v, A, B, C))
    try:
        return pack(geo["D"], D)
    except ValueError as exc:
        raise ModelError(f"{v.instruction}: {exc}; the result needs rounding, which the model does not predict") from None
