"""The wgmma reference model: what one probe kernel computes, from the specs' readings of the
register fragments and the document's shared-memory layouts. It is the fake device of the synthetic
dumps and the prediction the crosscheck compares hardware dumps with.

Per CTA (one warpgroup): A from its registers (the spec's A fragment: thread, element -> row, k) or
from its shared-memory image (read through the descriptor the kernel builds: decoded, then
wgmma_smem's layout for the mode it names), B from its image the same way, D in from the spec's D
fragment at this N; D = A.B (+ D in where scale-d is nonzero), .b1 as the popcount of AND, written
back through the D fragment. Exact: every value the probe uses is a small integer, so float64 holds
every product and sum; inputs that are not (NaN, a fraction) are refused, not rounded.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from checker.errors import CheckerError
from checker.probe import wgmma_smem as smem
from checker.probe.wgmma_ptx import THREADS
from checker.semantics.types import BITS, FLOATS, from_bits, to_bits

SMEM_START = 0x400  # where the model puts a buffer: 1024-aligned, as the kernels align them
EXACT = 1 << 24  # below this, every integer is exact in f32 (and in float64 sums of them)


class WgmmaModelError(CheckerError):
    """The model cannot run these inputs (not small integers) or this spec (no fragment)."""


@dataclass(frozen=True)
class Fragment:
    """One register fragment at this variant: cells (128, n, 2) of (row, col) per (thread, i)."""

    fragment: object
    type: str
    cells: np.ndarray
    per_register: int
    count: int  # 32-bit registers per thread

    @property
    def n(self) -> int:
        return self.cells.shape[1]


def _fragment(f, type_: str) -> Fragment:
    from checker.formula.evaluate import cells
    from checker.spec.reading import materialize

    reading = materialize(f)
    n = reading.n
    pts = [(t, i) for t in range(THREADS) for i in range(n)]
    rows, cols = cells(reading.layout, pts)
    row = next(r for r in f.table if type_ in r.types)
    return Fragment(f, type_, np.stack([np.array(rows), np.array(cols)], axis=-1).reshape(THREADS, n, 2),
                    row.per_register or 1, row.count)


_CACHE: dict = {}


def fragments(v, spec) -> dict:
    """{"A": Fragment or None (A from shared memory), "D": Fragment} of the variant, from its spec."""
    key = (v.spec, v.n, v.atype, v.dtype, v.a_shared, id(spec))
    if key not in _CACHE:
        a = d = None
        for f in spec.fragments():
            params = dict(f.params)
            if f.operand == "A" and v.atype in f.types_here() and not v.a_shared:
                a = _fragment(f, v.atype)
            if f.operand in ("C", "D") and params.get("N") == v.n and v.dtype in f.types_here():
                d = _fragment(f, v.dtype)
        if d is None or (a is None and not v.a_shared):
            raise WgmmaModelError(f"{v.spec}: no {'D' if d is None else 'A'} fragment for {v.instruction}")
        _CACHE[key] = (spec, {"A": a, "D": d})  # the spec kept alive, so its id names it alone
    return _CACHE[key][1]


def pack(g: Fragment, elements: np.ndarray) -> np.ndarray:
    """(..., 128, n) element bit patterns -> (..., 128, count) uint32 register words."""
    el = np.asarray(elements, dtype=np.uint64)
    words = np.zeros(el.shape[:-1] + (g.count,), dtype=np.uint64)
    width = BITS[g.type]
    for i in range(g.n):
        words[..., i // g.per_register] |= el[..., i] << np.uint64((i % g.per_register) * width)
    return words.astype(np.uint32)


def unpack(g: Fragment, words: np.ndarray) -> np.ndarray:
    """(..., 128, count) register words -> (..., 128, n) element bit patterns."""
    w = np.asarray(words, dtype=np.uint64)
    idx = np.arange(g.n)
    shifts = ((idx % g.per_register) * BITS[g.type]).astype(np.uint64)
    return (w[..., idx // g.per_register] >> shifts) & np.uint64((1 << BITS[g.type]) - 1)


def values(type_: str, bits) -> np.ndarray:
    return from_bits(type_, bits).astype(np.float64)


def bits_of(type_: str, vals) -> np.ndarray:
    try:
        return to_bits(type_, np.asarray(vals))
    except ValueError as exc:
        raise WgmmaModelError(str(exc)) from None


def scatter(g: Fragment, regs_values: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """(C, 128, n) values -> (C, rows, cols) matrices through the fragment."""
    out = np.zeros(regs_values.shape[:1] + (rows, cols))
    out[:, g.cells[..., 0], g.cells[..., 1]] = regs_values
    return out


def gather(g: Fragment, matrices: np.ndarray) -> np.ndarray:
    """(C, rows, cols) -> (C, 128, n) values through the fragment."""
    return matrices[:, g.cells[..., 0], g.cells[..., 1]]


def shared_matrix(v, image: np.ndarray, type_: str, rows: int, operand: str = "a") -> np.ndarray:
    """(C, bytes) images -> (C, rows, K) values, read as the kernel's descriptor says: the
    descriptor the kernel builds at SMEM_START, decoded field by field (B's K: 64 bytes sparse)."""
    high, k_bytes = (v.b_descriptor_high(), v.b_k_bytes) if operand == "b" else (v.descriptor_high(), smem.K_BYTES)
    fields = smem.decode(high | smem.encode(SMEM_START))
    el = smem.gather(image, BITS[type_], rows, fields["swizzle"], fields["lbo"], fields["sbo"], k_bytes)
    return values(type_, el)


def _exact(name: str, x: np.ndarray) -> None:
    if not (np.isfinite(x).all() and (x == np.round(x)).all() and (np.abs(x) < EXACT).all()):
        raise WgmmaModelError(f"{name} holds a value that is not a small integer (NaN, infinite, a fraction "
                              "or past 2**24): the model predicts exact inputs only")


def predict(v, spec, arrays: dict) -> np.ndarray:
    """d_out (C, 128, R) uint32 of one launch: arrays a, b, d_in, scale_d as the kernel reads them."""
    frag = fragments(v, spec)
    k = smem.K_BYTES * 8 // BITS[v.atype]
    if v.a_shared:
        a = shared_matrix(v, arrays["a"], v.atype, v.m)
    else:
        a = scatter(frag["A"], values(v.atype, unpack(frag["A"], arrays["a"])), v.m, k)
    a = v.expand_a(a, arrays)  # sparse: the compressed A at the columns its metadata names
    b = shared_matrix(v, arrays["b"], v.btype, v.n, "b").swapaxes(-1, -2)  # the image's rows are N: (C, K, N)
    dg = frag["D"]
    c = scatter(dg, values(v.dtype, unpack(dg, arrays["d_in"])), v.m, v.n)
    for name, x in (("A", a), ("B", b), ("D in", c)):
        _exact(name, x)
    d = a @ b + np.where(np.asarray(arrays["scale_d"])[:, None, None] != 0, c, 0.0)
    if v.dtype == "s32":
        d = (d.astype(np.int64) + (1 << 31)) % (1 << 32) - (1 << 31)  # .s32 wraps
    elif v.dtype in FLOATS:
        _exact("D", d)
    return pack(dg, bits_of(v.dtype, gather(dg, d)))
