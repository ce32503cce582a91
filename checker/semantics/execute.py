"""What one mma instruction computes for a whole warp: register images in, register images out.

    D = A x B + C      per MMA computation of the warp, exactly

Floating types are multiplied and summed as exact rationals; the result must be exactly
representable in .dtype, or the model refuses (it predicts only what needs no rounding: the
inputs are chosen so, see checker.semantics.inputs). Integers wrap modulo 2**32 as .s32 without
.satfinite does. .b1 computes popc(a XOR b) or popc(a AND b) summed along K, plus C.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from checker.semantics.registers import ModelError, geometry, pack, unpack
from checker.semantics.types import FLOATS


CHUNK = 512
# Products one batch may take on the exact rational path (Python Fractions, about 2.5 us each). The
# inputs the probe writes never take it: they scale to int64 (_dyadic, and the committed dumps show
# it). A dump's inputs can be anything: one subnormal C among 26,331 fp8 warps (98 KB gzipped, inside
# every size bound) took 4.5 minutes. Past the bound the model refuses, as it refuses a NaN; 2**16
# products (about 0.2 s) is twice the most one warp needs (m16n8k256: 16 x 8 x 256), so a batch of
# one warp of any inputs, the far-apart scales of a hand-made test included, is still predicted
# exactly. The rational path takes a whole chunk of warps at once, so one such warp among hundreds
# has the batch refused: a located refutation that says why, never a wrong verdict.
MAX_RATIONAL = 1 << 16


def geometries(v) -> dict:
    return {op: geometry(v.fragment(op), v.type_of(op)) for op in "ABCD"}


def shapes(v) -> dict:
    m, n, k = _mnk(v.shape)
    return {"A": (m, k), "B": (k, n), "C": (m, n), "D": (m, n)}


def _mnk(shape: str):
    import re

    found = re.fullmatch(r"m(\d+)n(\d+)k(\d+)", shape)
    if found is None:  # the model runs mma variants only; another family's shape has no M, N, K
        raise ModelError(f"the reference model runs mma shapes (mMnNkK), not {shape!r}")
    return tuple(int(x) for x in found.groups())


def multiply(v, A, B, C, spent: list | None = None) -> np.ndarray:
    """Exact D for matrices (..., computations, rows, cols): int64, or float64 where every
    result is a float64 exactly; a float result float64 cannot hold stays a Fraction (object).
    `spent`: the rational products a batch has taken so far, counted against MAX_RATIONAL."""
    if v.atype == "b1":
        # popc over K of a AND b is a.b for 0/1 entries; of a XOR b, a + b - 2ab summed
        a, b = A.astype(np.int64), B.astype(np.int64)
        both = _matmul(a, b)
        if v.op == "xor":
            both = a.sum(axis=-1)[..., :, None] + b.sum(axis=-2)[..., None, :] - 2 * both
        return _wrap(both + C.astype(np.int64))
    if v.atype in FLOATS:
        if not all(np.isfinite(x).all() for x in (A, B, C)):
            raise ModelError("an input is NaN or infinite; the model predicts only exact, finite results")
        scaled = _dyadic(A, B, C)
        if scaled is not None:
            return scaled
        spent = [0] if spent is None else spent
        spent[0] += int(np.prod(A.shape[:-2], dtype=np.int64)) * A.shape[-2] * A.shape[-1] * B.shape[-1]
        if spent[0] > MAX_RATIONAL:
            raise ModelError(f"the inputs need exact rational arithmetic for more than {MAX_RATIONAL} products "
                             "(values too far apart in scale for int64, a subnormal beside normal ones, say); "
                             "the model refuses that much work")
        return _rational(A, B, C)
    return _wrap(_matmul(A.astype(np.int64), B.astype(np.int64)) + C.astype(np.int64))


def _matmul(a, b) -> np.ndarray:
    """Exact integer a.b: through float64 (BLAS) where no sum can reach 2**53, else int64."""
    top = float(np.abs(a).max(initial=0)) * float(np.abs(b).max(initial=0)) * a.shape[-1]
    if top < 2.0 ** 53:
        return np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.int64)
    return np.einsum("...mk,...kn->...mn", a, b)


def _low_exponent(x) -> int:
    """The exponent of the lowest set bit over all non-zero values of a float64 array: every
    value is an integer times 2**that."""
    x = np.asarray(x, dtype=np.float64)
    x = x[x != 0]
    if not x.size:
        return 0
    m, e = np.frexp(np.abs(x))
    mi = (m * float(1 << 53)).astype(np.int64)
    tz = np.frexp((mi & -mi).astype(np.float64))[1] - 1
    return int((e - 53 + tz).min())


def _dyadic(A, B, C):
    """A.B + C in int64 after scaling every value to an integer: exact, and fast. None where the
    scaled integers could overflow int64 or the result would not be a float64 exactly."""
    ea, eb, ec = _low_exponent(A), _low_exponent(B), _low_exponent(C)
    s = min(ea + eb, ec)
    if ea + eb - s > 62:  # the products' scale cannot be an int64 factor (a subnormal C, say)
        return None
    k = A.shape[-1]
    ta, tb, tc = _scaled_top(A, ea), _scaled_top(B, eb), _scaled_top(C, s)
    # an operand of zeros leaves the other's scale unbounded by the products (A = 0 beside a B of
    # subnormals): 2.0 ** 1074 raised OverflowError, and a B past int64 was cast to garbage
    if max(ta, tb, tc) >= 2.0 ** 62:
        return None
    bound = ta * tb * k * 2.0 ** (ea + eb - s) + tc
    if bound >= 2.0 ** 53:
        return None
    Ai = np.ldexp(A, -ea).astype(np.int64)
    Bi = np.ldexp(B, -eb).astype(np.int64)
    Ci = np.ldexp(C, -s).astype(np.int64)
    Di = _matmul(Ai, Bi) * (1 << (ea + eb - s)) + Ci
    return np.ldexp(Di.astype(np.float64), s)


def _scaled_top(x, e) -> float:
    """max |x| * 2**-e, the largest scaled integer; inf past float64's range."""
    m = float(np.abs(x).max(initial=0))
    if m == 0:
        return 0.0
    try:
        return math.ldexp(m, -e)
    except OverflowError:
        return math.inf


def _rational(A, B, C):
    frac = np.vectorize(Fraction, otypes=[object])
    a, b, c = frac(A), frac(B), frac(C)
    out = np.empty(C.shape, dtype=object)
    for idx in np.ndindex(C.shape[:-2]):
        out[idx] = a[idx].dot(b[idx]) + c[idx]
    return out


def _wrap(x):
    return ((x + (1 << 31)) % (1 << 32)) - (1 << 31)


def exact_values(v, D) -> np.ndarray:
    """Exact results as float64 (floats) or int64, refusing any that float64 cannot hold exactly."""
    if D.dtype != object:
        return D
    out = np.array([float(x) for x in D.ravel()]).reshape(D.shape)
    if any(Fraction(f) != x for f, x in zip(out.ravel(), D.ravel())):
        raise ModelError("a result is not exactly representable in float64; choose exact inputs")
    return out


def execute(v, a_regs, b_regs, c_regs, geo=None) -> np.ndarray:
    """Register images (..., 32, count) of A, B, C -> those of D; leading axes are a batch,
    run in chunks so a batch of thousands of .b1 warps stays within memory."""
    geo = geo or geometries(v)
    a_regs, b_regs, c_regs = (np.asarray(x) for x in (a_regs, b_regs, c_regs))
    spent = [0]  # one MAX_RATIONAL for the whole batch, not one per chunk
    if a_regs.ndim == 3 and len(a_regs) > CHUNK:
        return np.concatenate([_execute(v, a_regs[s:s + CHUNK], b_regs[s:s + CHUNK], c_regs[s:s + CHUNK], geo, spent)
                               for s in range(0, len(a_regs), CHUNK)])
    return _execute(v, a_regs, b_regs, c_regs, geo, spent)


def _execute(v, a_regs, b_regs, c_regs, geo, spent: list) -> np.ndarray:
    shp = shapes(v)
    A = unpack(geo["A"], a_regs, shp["A"])
    B = unpack(geo["B"], b_regs, shp["B"])
    C = unpack(geo["C"], c_regs, shp["C"])
    D = exact_values(v, multiply(v, A, B, C, spent))
    try:
        return pack(geo["D"], D)
    except ValueError as exc:
        raise ModelError(f"{v.instruction}: {exc}; the result needs rounding, which the model does not predict") from None
