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
from dataclasses import dataclass, field

import checker.compare.cute as cute_text
from checker.compare.candidates import MAX_SEARCHED, Candidate, searched_outside

DP_B = 1 << 21  # TMEM::DP_b: the bit addresses between two data-path lanes
BITS = 32  # a .b32 register; a TMEM column
# the logical bits a ValID may number: those of the largest register side an atom may have
# (MAX_SEARCHED points of 32 bits). The enumeration tables the ValID's upper modes, and z3 bounds a
# bit id by the ValID's size in 32 bits: a ValID of 2**32 bits took 39 s and 1 GB, and its size
# wrapped to 0 in z3, whose verdict then differed from the enumeration's
MAX_VAL_BITS = MAX_SEARCHED * BITS


@dataclass(frozen=True)
class TmemAtom(Candidate):
    registers: cute_text.Layout
    val_id: cute_text.Layout
    kind: str = "cute-tmem"
    origin: str = field(default="", compare=False)  # the user's file it was read from (compare --cute-tmem)

    @property
    def threads(self) -> int:
        return self.registers.threads

    @property
    def elements(self) -> int:
        return self.registers.values // BITS

    def describe(self) -> str:
        named = f" {self.origin}" if self.origin else ""
        return (f"the CuTe TMEM copy atom{named} (registers {self.registers.show()}, ValID {self.val_id.show()}, "
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
        """Every point's cell (None where it holds none). An atom of 32 lanes x 128 registers is
        131,072 bits, which `missing` asks one at a time (0.12 s an atom); so where both layouts
        carry a register's 32 bits whole (`_whole`: bit k of a 32-aligned run is k past its first,
        in the registers' values and in the ValID's bit ids alike), a point is held exactly when its
        first bit is 32-aligned, inside the ValID, at a column's first address, and only that bit is
        evaluated. Anywhere else the rule is asked bit by bit."""
        threads, elements = self.threads, self.elements
        modes = self.val_id.thread + self.val_id.value
        whole = _whole(self.registers.value) and _whole(modes)
        size = self.val_id.threads * self.val_id.values
        if whole:  # the ValID's index is b mod q past its compact leading modes, plus the rest's at b // q
            q, k = 1, 0
            while q % BITS:
                q, k = q * modes[k][0], k + 1
            rest = [cute_text.evaluate(modes[k:], y) for y in range(size // q)]
        out = []
        for t in range(threads):
            row = []
            for i in range(elements):
                b = self.logical(t, BITS * i) if whole else None
                if whole and b % BITS == 0 and b < size:
                    a = b % q + rest[b // q]
                    row.append((a // DP_B, (a % DP_B) // BITS) if a % BITS == 0 else None)
                elif whole:
                    row.append(None if b % BITS == 0 or b >= size else self._per_bit(t, i))
                else:
                    row.append(self._per_bit(t, i))
            out.append(row)
        return out

    def _per_bit(self, t: int, i: int):
        return None if self.missing(t, i) else self.cell(t, i)

    def detail(self, t: int, i: int) -> str:
        b, a = self._bits(t, i)
        return f"logical bit {b}, TMEM address {a}: lane {a // DP_B}, bits {a % DP_B}..{a % DP_B + BITS - 1}"

    def outside(self, spec_threads: int, n: int) -> tuple:
        return searched_outside(self.holds, self.threads, self.elements, spec_threads, n)

    def form(self) -> tuple:
        return ("cute-tmem", self.registers.thread, self.registers.value, self.val_id.thread + self.val_id.value,
                self.val_id.threads * self.val_id.values, self.threads, self.elements)


def _whole(modes) -> bool:
    """Whether the index of x + k is the index of x plus k, for every x a multiple of 32 and k < 32:
    the leading modes are compact with stride 1 (each stride the product of the sizes before it) up
    to a product that is a multiple of 32. Their index is then x mod that product, whose low five
    bits are k, and the modes after them read only x's higher digits."""
    product = 1
    for size, stride in modes:
        if product % BITS == 0:
            return True
        if stride != product and size > 1:
            return False
        product *= size
    return product % BITS == 0


def problem(registers: cute_text.Layout, val_id: cute_text.Layout) -> str | None:
    """What makes the two layouts no TMEM atom: registers of a whole number of 32-bit registers, a
    ValID of at most MAX_VAL_BITS bits whose addresses stay below 128 lanes (the checker's 32-bit
    terms stay exact)."""
    if registers.values % BITS:
        return f"registers: the value mode has {registers.values} bits, not a whole number of {BITS}-bit registers"
    bits = val_id.threads * val_id.values
    if bits > MAX_VAL_BITS:
        return (f"val_id: numbers {bits} logical bits, more than {MAX_VAL_BITS} (32-bit registers of {MAX_SEARCHED} "
                "points)")
    top = sum((size - 1) * max(stride, 0) for size, stride in val_id.thread + val_id.value)
    if top >= 128 * DP_B:
        return f"val_id: its last address is {top}, past TMEM's 128 lanes of {DP_B} bit addresses"
    return None


def thr_problem(thr_id: cute_text.Layout, registers: cute_text.Layout) -> str | None:
    """What makes a ThrID (logical thread id -> thread index) other than the one this candidate
    reads: the identity over the registers' threads, so that thread t of `registers` is lane t.
    Every CuTe TMEM atom's is Layout<_32>; a permuted one is not modelled (refused, not guessed)."""
    n = thr_id.threads * thr_id.values
    if n != registers.threads:
        return f"thr_id: {n} threads; the registers layout has {registers.threads}"
    for x in range(n):
        got = thr_id.index(x % thr_id.threads, x // thr_id.threads)
        if got != x:
            return (f"thr_id: logical thread {x} is thread {got}; only the identity (CuTe's Layout<_{n}>, printed "
                    f"_{n}:_1) is modelled: thread t of the registers layout is lane t")
    return None
