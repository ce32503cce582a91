"""Inputs whose every product and partial sum is exactly representable, so the hardware result
does not depend on rounding or summation order and can be compared bit for bit.

  .f16 .bf16 .tf32 .e4m3 .e5m2  A, B in {-4, -3.5, ..., 4} (k/2, |k| <= 8: at most 4 significant bits,
                          held exactly by every one of these types, .e5m2 included)
  C/D .f16 .f32           C in {-64, -63.75, ..., 64}: every partial sum is a multiple of 1/4
                          below 16*K + 64 in magnitude -- 320 for K = 16, within .f16's 11 bits
  .f64                    A, B in k/4, |k| <= 64; C in k/8, |k| <= 1024
  .s8/.u8 .s4/.u4         the whole range of the type; C .s32 in [-2**20, 2**20]
  .b1                     random bits; C in [-1024, 1024]

Every lane gets different values (the generator is seeded per call), so no two lanes' registers
are alike and nothing can be folded away by a compiler.
"""
from __future__ import annotations

import numpy as np

from checker.semantics.execute import shapes

_RANGES = {"s8": (-128, 127), "u8": (0, 255), "s4": (-8, 7), "u4": (0, 15), "b1": (0, 1)}


def _operand(type_, shape, rng):
    if type_ in ("f16", "bf16", "tf32", "e4m3", "e5m2"):
        return rng.integers(-8, 9, shape) / 2
    if type_ == "f64":
        return rng.integers(-64, 65, shape) / 4
    lo, hi = _RANGES[type_]
    return rng.integers(lo, hi + 1, shape)


def _accumulator(v, shape, rng):
    if v.ctype == "f64":
        return rng.integers(-1024, 1025, shape) / 8
    if v.ctype in ("f16", "f32"):
        return rng.integers(-256, 257, shape) / 4
    if v.atype == "b1":
        return rng.integers(-1024, 1025, shape)
    return rng.integers(-(1 << 20), (1 << 20) + 1, shape)


def random_inputs(v, seed: int):
    rng = np.random.default_rng(seed)
    groups = max(1, len(v.a.computations))
    shp = shapes(v)
    A = _operand(v.atype, (groups,) + shp["A"], rng)
    B = _operand(v.btype, (groups,) + shp["B"], rng)
    C = _accumulator(v, (groups,) + shp["C"], rng)
    return A, B, C


def host_product(v, A, B, C) -> np.ndarray:
    """A.B + C on the host in float64 / int64, with no layout involved: what a round trip must
    reproduce. (float64 is exact here: see the input ranges above.)"""
    if v.atype == "b1":
        a, b = A.astype(np.int64)[:, :, :, None], B.astype(np.int64)[:, None, :, :]
        return ((a ^ b) if v.op == "xor" else (a & b)).sum(axis=2) + C
    if v.atype in ("s8", "u8", "s4", "u4"):
        return np.einsum("gmk,gkn->gmn", A.astype(np.int64), B.astype(np.int64)) + C
    return np.einsum("gmk,gkn->gmn", A.astype(np.float64), B.astype(np.float64)) + C
