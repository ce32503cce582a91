"""Scatter matrices into per-lane register images by a spec's layout, and gather them back.

A register image is a (32, count) uint64 array: lane, register. Element i of a fragment lives in
register i // p at bits (i % p) * bits .. +bits, p elements per register (the table's
`per_register`, 1 where it gives none): the first element in the low bits, as PTX packs .f16x2.
Where a warp runs several MMAs (m8n8k4 .f16), matrices carry a leading computation axis and
each computation's lanes hold its own matrices.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from checker.errors import CheckerError
from checker.formula.evaluate import cells
from checker.semantics.types import BITS, from_bits, to_bits
from checker.spec.model import KIND_BITS
from checker.spec.reading import materialize


class ModelError(CheckerError):
    """The reference model cannot run these inputs (a layout that is not a bijection, inexact inputs)."""


@dataclass(frozen=True)
class Geometry:
    fragment: object
    type: str
    count: int  # registers per lane
    reg_bits: int  # 32 or 64
    per_register: int
    rows: np.ndarray  # (32, n): the matrix row of element i of lane
    cols: np.ndarray
    groups: tuple  # lanes of each computation

    @property
    def n(self) -> int:
        return self.rows.shape[1]


def geometry(fragment, type_: str, reading=None) -> Geometry:
    row = next((r for r in fragment.table if type_ in r.types), None)
    if row is None:  # a variant is made of fragments that hold its types; a caller's may not
        raise ModelError(f"{fragment.span}: {fragment.id} has no table row of .{type_} (its types: "
                         f"{', '.join('.' + t for t in fragment.types)})")
    reading = reading or materialize(fragment)
    n = reading.n
    threads = fragment.threads.count
    pts = [(lane, i) for lane in range(threads) for i in range(n)]
    rows, cols = cells(reading.layout, pts)
    rows, cols = np.array(rows).reshape(threads, n), np.array(cols).reshape(threads, n)
    groups = tuple(c.lanes for c in fragment.computations) or (tuple(range(threads)),)
    p = row.per_register or 1
    if p * BITS[type_] > KIND_BITS[row.kind] or row.count * p < n:
        raise ModelError(f"{fragment.id}: {row.count} x .{row.kind} cannot hold {n} .{type_} elements")
    return Geometry(fragment, type_, row.count, KIND_BITS[row.kind], p, rows, cols, groups)


def group_of(g: Geometry) -> np.ndarray:
    owner = np.full(32, -1)
    for k, lanes in enumerate(g.groups):
        owner[list(lanes)] = k
    return owner


def pack(g: Geometry, matrices: np.ndarray) -> np.ndarray:
    """matrices (..., computations, rows, cols), or (rows, cols) -> register images (..., 32, count):
    any leading axes are a batch of warps."""
    mats = np.asarray(matrices)
    if mats.ndim == 2:
        mats = mats[None]
    nrows, ncols = mats.shape[-2:]
    if ((g.rows < 0) | (g.rows >= nrows) | (g.cols < 0) | (g.cols >= ncols)).any():
        raise ModelError(f"{g.fragment.id}: the layout sends an element outside the {nrows}x{ncols} matrix")
    owner = group_of(g)
    values = mats[..., owner[:, None], g.rows, g.cols]  # (..., 32, n)
    bits = to_bits(g.type, values)
    regs = np.zeros(values.shape[:-1] + (g.count,), dtype=np.uint64)
    width = BITS[g.type]
    for i in range(g.n):
        regs[..., i // g.per_register] |= bits[..., i] << np.uint64((i % g.per_register) * width)
    return regs


def elements(g: Geometry, regs: np.ndarray) -> np.ndarray:
    """Register images (..., 32, count) -> raw element bits (..., 32, n)."""
    regs = np.asarray(regs, dtype=np.uint64)
    idx = np.arange(g.n)
    shifts = ((idx % g.per_register) * BITS[g.type]).astype(np.uint64)
    return (regs[..., idx // g.per_register] >> shifts) & np.uint64((1 << BITS[g.type]) - 1)


def _gather_index(g: Geometry, shape: tuple) -> np.ndarray:
    """For every cell of (computations, rows, cols), flattened: the flat (lane, i) slot that
    holds it. A cell no slot holds, or two do, is a ModelError naming it."""
    owner = group_of(g)
    lanes = np.broadcast_to(np.arange(32)[:, None], g.rows.shape)
    inside = (g.rows >= 0) & (g.rows < shape[0]) & (g.cols >= 0) & (g.cols < shape[1])
    flat = (owner[lanes] * shape[0] + g.rows) * shape[1] + g.cols
    cells = (len(g.groups),) + tuple(shape)
    hits = np.bincount(flat[inside], minlength=int(np.prod(cells))).reshape(cells)
    bad = np.argwhere(hits != 1)
    if len(bad):
        k, r, c = bad[0]
        raise ModelError(f"{g.fragment.id}: cell [{r}][{c}]{f' of computation {k + 1}' if len(g.groups) > 1 else ''} "
                         f"is held by {hits[k, r, c]} elements, not exactly one")
    index = np.empty(hits.size, dtype=np.int64)
    index[flat[inside]] = np.nonzero(inside.ravel())[0]
    return index, cells


def unpack(g: Geometry, regs: np.ndarray, shape: tuple) -> np.ndarray:
    """Register images (..., 32, count) -> (..., computations, rows, cols) float64 or int64
    values. A cell no element lands on, or two elements land on, is a ModelError naming it."""
    index, cells = _gather_index(g, shape)
    values = from_bits(g.type, elements(g, regs))
    flat = values.reshape(values.shape[:-2] + (32 * g.n,))
    return np.take(flat, index, axis=-1).reshape(values.shape[:-2] + cells)
