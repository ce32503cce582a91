"""CuTe's Tensor Memory copy atoms for tcgen05.ld / tcgen05.st (kind `cute-tmem`) as a candidate
layout: (lane, i) -> (TMEM lane, 32-bit column) of the spec's tile, evaluated from the atom's two
CuTe layouts (include/cute/atom/copy_traits_sm100.hpp).

An atom states bits, not registers. `registers` maps (thread, value) to a logical bit id (LOAD's
DstLayout, STORE's SrcLayout: a value is one bit, so register i of a lane is values 32*i ..
32*i + 31); `val_id` (the atom's ValID) maps a logical bit id to a bit address of Tensor Memory,
whose data-path lanes are TMEM::DP_b = 1 << 21 bit addresses apart (tmem_allocator_sm100.hpp:49):
address a is bit a % DP_b of TMEM lane a / DP_b, column (a % DP_b) / 32. A `val_id` is one layout
of two top modes (column bits, lanes): read as a TV layout, its index at bit id b is
index(b % size(first mode), b / size(first mode)), CuTe's colexicographic order.

A point is held when its 32 bits are 32 consecutive bit addresses of one lane, starting at a
column; otherwise the candidate holds nothing there and says why (`missing`). z3 evaluates the
same from `form()` (checker.smt.compare), from the layouts' modes, independently of `cells`.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import checker.compare.cute as cute_text
from checker.compare.candidates import Candidate, searched_outside

DP_B = 1 << 21  # TMEM::DP_b: the bit addresses between two data-path lanes
BITS = 32  # a .b32 register; a TMEM column


@dataclass(frozen=True)
class TmemAtom(Candidate):
    registers: cute_text.Layout
    val_id: cute_text.Layout
    kind: str = "cute-tmem"

    @property
    def threads(self) -> int:
        return self.registers.threads

    @property
    def elements(self) -> int:
        return self.registers.values // BITS

    def describe(self) -> str:
        return (f"the CuTe TMEM copy atom (registers {self.registers.show()}, ValID {self.val_id.show()}, "
                f"{BITS}-bit registers)")

    def logical(self, t: int, v: int) -> int:
        return self.registers.index(t, v)

    def address(self, b: int) -> int:
        n = self.val_id.threads
        return self.val_id.index(b % n, b // n)

    def _bits(self, t: int, i: int) -> tuple:
        b = self.logical(t, BITS * i)
        return b, self.address(b)

    def missing(self, t: int, i: int) -> str:
        """Candidate.missing: why (t, i) holds no register, or "" when it holds one."""
        if not (t < self.threads and i < self.elements):
            return ""
        b, a = self._bits(t, i)
        if b >= self.val_id.threads * self.val_id.values:
            return f"its bits start at logical bit {b}, outside the ValID's {self.val_id.threads * self.val_id.values}"
        for k in range(1, BITS):
            got = self.address(self.logical(t, BITS * i + k))
            if got != a + k:
                return (f"its {BITS} bits are not one column: value {BITS * i} is address {a}, value {BITS * i + k} "
                        f"is address {got}")
        if a % BITS:
            return f"its bits start at address {a}, not at a column (a multiple of {BITS})"
        return ""

    def holds(self, t: int, i: int) -> bool:
        return t < self.threads and i < self.elements and self._table[t][i] is not None

    def cell(self, t: int, i: int) -> tuple:
        a = self._bits(t, i)[1]
        return a // DP_B, (a % DP_B) // BITS

    def cells(self, points) -> list:
        table, threads, elements = self._table, self.threads, self.elements
        return [table[t][i] if t < threads and i < elements else None for t, i in points]

    @functools.cached_property
    def _table(self) -> list:
        """Every point's cell (None where it holds none), all bits of all registers at once: an atom
        of 32 lanes x 128 registers is 131,072 bits, which `missing` asked one at a time took 0.12 s
        for (x 74 atoms of the catalogue); the same arithmetic, as arrays."""
        import numpy as np

        t = np.arange(self.threads, dtype=np.int64)[:, None]
        v = np.arange(self.elements * BITS, dtype=np.int64)[None, :]
        b = _strided(t, self.registers.thread) + _strided(v, self.registers.value)  # logical bit ids
        a = _strided(b, self.val_id.thread + self.val_id.value).reshape(self.threads, self.elements, BITS)
        first = a[:, :, 0]
        held = ((b[:, ::BITS] < self.val_id.threads * self.val_id.values) & (first % BITS == 0)
                & (a == first[:, :, None] + np.arange(BITS)).all(axis=2))
        lane, col = (first // DP_B).tolist(), ((first % DP_B) // BITS).tolist()
        return [[(lane[t][i], col[t][i]) if ok else None for i, ok in enumerate(row)] for t, row in enumerate(held.tolist())]

    def detail(self, t: int, i: int) -> str:
        b, a = self._bits(t, i)
        return f"logical bit {b}, TMEM address {a}: lane {a // DP_B}, bits {a % DP_B}..{a % DP_B + BITS - 1}"

    def outside(self, spec_threads: int, n: int) -> tuple:
        return searched_outside(self.holds, self.threads, self.elements, spec_threads, n)

    def form(self) -> tuple:
        return ("cute-tmem", self.registers.thread, self.registers.value, self.val_id.thread + self.val_id.value,
                self.val_id.threads * self.val_id.values, self.threads, self.elements)


def _strided(x, modes):
    """CuTe's index of coordinate x in modes (size, stride), the first fastest: arrays of them."""
    idx = 0
    for size, stride in modes:
        idx = idx + (x % size) * stride
        x = x // size
    return idx


def problem(registers: cute_text.Layout, val_id: cute_text.Layout) -> str | None:
    """What makes the two layouts no TMEM atom: registers of a whole number of 32-bit registers, a
    ValID whose addresses stay below 128 lanes (the checker's 32-bit terms stay exact)."""
    if registers.values % BITS:
        return f"registers: the value mode has {registers.values} bits, not a whole number of {BITS}-bit registers"
    top = sum((size - 1) * max(stride, 0) for size, stride in val_id.thread + val_id.value)
    if top >= 128 * DP_B:
        return f"val_id: its last address is {top}, past TMEM's 128 lanes of {DP_B} bit addresses"
    return None
