"""How the metadata of a sparse A selects columns (9.7.14.6.1), for the ranges the fragment
formulas give.

A register holds `per_register` non-zero elements out of a range of `out_of` consecutive columns
(`col = [firstcol ... lastcol]`). The range is whole chunks of `chunk` columns, each with
`nonzero` non-zero elements; for the pair-wise 4:8 sparsity of .u4/.s4 (and .e2m1 with
.kind::mxf4) the unit is a two-wide sub-chunk, so a chunk of 8 has 4 units of which 2 are
non-zero. Every non-zero unit of a chunk has a metadata index, the unit's position in the chunk.
No two indices of a chunk are alike ("Values 0b0000, 0b0101, 0b1010, 0b1111 are invalid values for
metadata", 9.7.14.6.1 and 9.7.15.6.1): that is all `wgmma.mma_async.sp` and plain `mma.sp` of
.f16/.bf16, .u8/.s8 and .u4/.s4 ask. With `mma.sp::ordered_metadata`, and for the types whose
storage paragraph gives the meaningful values without "For mma.sp::ordered_metadata" (the
.kind::f8f6f4 types and .e2m1), a chunk's indices increase (0b0100, 0b1000, 0b1001, 0b1100,
0b1101, 0b1110 are exactly the pairs of 2-bit indices low < high). The elements of a register
follow in order: chunk by chunk, unit by unit, element by element.

Which lane and which bits of the metadata operand hold the indices of which chunk is given only
as figures (Figures 119, 122, 125, 127, 129, 136-137, 139, 146-147), which are not transcribed;
this module needs only the indices themselves.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Geometry:
    nonzero: int
    chunk: int
    pairwise: bool
    per_register: int
    out_of: int

    @property
    def unit(self) -> int:
        return 2 if self.pairwise else 1

    @property
    def units(self) -> int:
        """Units per chunk: the metadata index of a non-zero unit is one of 0..units-1."""
        return self.chunk // self.unit

    @property
    def picked(self) -> int:
        """Non-zero units per chunk: metadata indices per chunk."""
        return self.nonzero // self.unit


def geometry(fragment) -> Geometry:
    sp = fragment.sparsity
    return Geometry(sp.nonzero, sp.chunk, sp.pairwise, sp.per_register, sp.out_of)


def column(g: Geometry, firstcol: int, p: int, indices: tuple) -> int:
    """The column of A of the register's element p (0..per_register-1), given the metadata
    indices of the range's chunks, chunk by chunk (g.picked per chunk)."""
    c, q, e = p // g.nonzero, (p % g.nonzero) // g.unit, p % g.unit
    return firstcol + c * g.chunk + indices[c * g.picked + q] * g.unit + e


# 9.7.14.6.1: the storage paragraphs of these types state the increasing values for mma.sp itself
ORDERED_ALWAYS = frozenset({"e4m3", "e5m2", "e3m2", "e2m3", "e2m1"})


def distinct(g: Geometry, indices: tuple) -> bool:
    """The indices every sparse instruction accepts: in range, no two of one chunk alike."""
    chunks = [indices[k:k + g.picked] for k in range(0, len(indices), g.picked)]
    return all(0 <= x < g.units for x in indices) and all(len(set(c)) == len(c) for c in chunks)


def ordered(g: Geometry, indices: tuple) -> bool:
    """The indices are what `::ordered_metadata` accepts: in range, increasing within each chunk."""
    chunks = [indices[k:k + g.picked] for k in range(0, len(indices), g.picked)]
    return all(0 <= x < g.units for x in indices) and all(list(c) == sorted(set(c)) for c in chunks)


def unordered_types(family: str, types) -> tuple:
    """The types of a sparse A whose chunks may hold their indices in any order (distinct): every
    type of wgmma.mma_async.sp; of mma.sp, those not in ORDERED_ALWAYS, and then with plain `.sp`
    only (`::ordered_metadata` asks increasing indices of every type)."""
    return tuple(types) if family == "wgmma.sp" else tuple(t for t in types if t not in ORDERED_ALWAYS)


def candidates(g: Geometry, offset: int) -> list:
    """Which elements p of a register can hold the column `offset` places into its range, and
    the metadata that makes each do so: [(p, chunk, q, index, increasing)], meaning "element p
    holds it when the q-th index of the range's chunk `chunk` is `index`"; `increasing`: also
    where a chunk's indices increase (the q-th of `picked` increasing indices lies in
    q..units-picked+q), not only where they are merely distinct."""
    c, u, e = offset // g.chunk, (offset % g.chunk) // g.unit, offset % g.unit
    return [(c * g.nonzero + q * g.unit + e, c, q, u, q <= u <= g.units - g.picked + q) for q in range(g.picked)]
