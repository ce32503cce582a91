"""Element types: their bits, and the conversion between values and raw bit patterns, done by
numpy and ml_dtypes (never a hand-written float codec).

.e4m3 is ml_dtypes' float8_e4m3fn (no infinities, one NaN pattern), which is PTX's .e4m3.
.tf32 is held in a 32-bit register as an .f32 bit pattern. The chapter says of wgmma that it
"will truncate lower 13 bits" of a .tf32 input (9.7.15.5.2); the model reads mma's .tf32 the same
way, and a value is a .tf32 exactly when it is an .f32 with those bits zero. The probe's inputs
never set them, so the assumption is never what a verdict rests on.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "f32": 32, "f64": 64, "s32": 32,
        "s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1}
NUMPY = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "tf32": np.float32, "e4m3": ml_dtypes.float8_e4m3fn,
         "e5m2": ml_dtypes.float8_e5m2, "f32": np.float32, "f64": np.float64, "s32": np.int32,
         "s8": np.int8, "u8": np.uint8, "s4": ml_dtypes.int4, "u4": ml_dtypes.uint4}
_UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
FLOATS = {"f16", "bf16", "tf32", "e4m3", "e5m2", "f32", "f64"}
_TF32_DROPPED = np.uint64((1 << 13) - 1)


def to_bits(type_: str, values) -> np.ndarray:
    """Values (exactly representable in the type) -> their bit patterns, as uint64."""
    v = np.asarray(values)
    if type_ == "b1":
        if not np.isin(v, (0, 1)).all():
            raise ValueError(".b1 elements are 0 or 1")
        return v.astype(np.uint64)
    with np.errstate(over="ignore", invalid="ignore"):  # a value too large for the type: the check below
        #                                                  refuses it; numpy had also warned on stderr
        typed = v.astype(NUMPY[type_])
    if type_ in FLOATS and not np.array_equal(typed.astype(np.float64), v.astype(np.float64)):
        raise ValueError(f"a value is not exactly representable as .{type_}")
    if type_ not in FLOATS and not np.array_equal(typed.astype(np.int64), v.astype(np.int64)):
        raise ValueError(f"a value is outside the range of .{type_}")
    bits = BITS[type_]
    raw = typed.view(_UINT[max(8, bits)]).astype(np.uint64)
    if type_ == "tf32" and (raw & _TF32_DROPPED).any():
        raise ValueError("a value is not exactly representable as .tf32 (more than 10 mantissa bits)")
    return raw & np.uint64((1 << bits) - 1)


def from_bits(type_: str, raw) -> np.ndarray:
    """Bit patterns -> values: float64 for floating types, int64 for the others."""
    r = np.asarray(raw, dtype=np.uint64)
    bits = BITS[type_]
    if type_ == "b1":
        return (r & np.uint64(1)).astype(np.int64)
    if type_ == "tf32":
        r = r & ~_TF32_DROPPED
    container = (r & np.uint64((1 << bits) - 1)).astype(_UINT[max(8, bits)])
    typed = container.view(NUMPY[type_])
    # a NaN pattern is a NaN (a dump's bytes are anyone's); numpy warned on stderr casting ml_dtypes'
    # bfloat16 NaN, naming this line
    with np.errstate(invalid="ignore"):
        return typed.astype(np.float64 if type_ in FLOATS else np.int64)
