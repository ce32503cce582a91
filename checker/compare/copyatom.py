"""CuTe's copy atoms for ldmatrix, stmatrix and movmatrix (kind `cute-copy`) as a candidate layout:
(lane, i) -> (row, col) of the spec's tile, evaluated from the atom's two CuTe layouts.

An atom states bits, not elements. `registers` maps (thread, value) to a bit of a tile of
`tile_rows` rows of 128 bits, row-major (bit b is bit b % 128 of row b / 128); a value is one bit,
so element i of a lane is values bits*i .. bits*(i+1)-1, and it is one element of the tile only
when those bits are consecutive and start at a multiple of `bits`. `memory` maps (thread, value)
to the same tile's bits: thread u's 128 values are the tile row whose start address u gives.
The spec numbers its rows by the thread that gives the address (the document's addr0..addr31:
the first thread giving it), so a register bit's tile row is renumbered through `memory`; a row
no thread addresses is loaded by no one. `shuffle` (the SM100 8-bit atoms): the atom moves bytes
after the instruction; raw element i of the instruction is the atom's element shuffle[i].

A point is held when its bits are one element of the tile, inside it, in a row some thread
addresses; otherwise the candidate holds nothing there and says why (`missing`). z3 evaluates the
same from `form()` (checker.smt.compare), from the layouts' modes, independently of `cells`.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import checker.compare.cute as cute_text
from checker.compare.candidates import Candidate, searched_outside

ROW_BITS = 128
SHUFFLE_NAME = re.compile(r"tmp([0-9]{1,2})_\.([xyzw])")


@dataclass(frozen=True)
class CopyAtom(Candidate):
    registers: cute_text.Layout
    tile_rows: int
    bits: int  # of one element
    memory: cute_text.Layout | None = None
    shuffle: tuple = ()  # raw element i -> the atom's element; () is the identity
    kind: str = "cute-copy"

    @property
    def threads(self) -> int:
        return self.registers.threads

    @property
    def elements(self) -> int:
        return self.registers.values // self.bits

    def describe(self) -> str:
        parts = [f"registers {self.registers.show()}"]
        if self.memory is not None:
            parts.append(f"memory {self.memory.show()}")
        if self.shuffle:
            parts.append("its byte shuffle")
        return f"the CuTe copy atom ({', '.join(parts)}, {self.bits}-bit elements)"

    def element(self, i: int) -> int:
        return self.shuffle[i] if self.shuffle and i < len(self.shuffle) else i

    def bit(self, t: int, i: int) -> int:
        return self.registers.index(t, self.bits * self.element(i))

    def addresser(self, row: int) -> int | None:
        """The first thread whose address is tile row `row` (the spec's row number of it)."""
        if self.memory is None:
            return row
        return self._first_addressers.get(row)

    @functools.cached_property
    def _first_addressers(self) -> dict:
        # one pass over the memory's threads: a scan for each row asked was 65536 threads for each
        # of 65536 points in a user's atom, and compare never ended
        out: dict = {}
        for u in range(self.memory.threads):
            out.setdefault(self.memory.index(u, 0) // ROW_BITS, u)
        return out

    def missing(self, t: int, i: int) -> str:
        """Candidate.missing: why (t, i) holds no element, or "" when it holds one."""
        if not (t < self.threads and i < self.elements):
            return ""
        b, e = self.bit(t, i), self.element(i)
        for k in range(1, self.bits):
            if self.registers.index(t, self.bits * e + k) != b + k:
                return (f"its {self.bits} bits are not one element: value {self.bits * e} is bit {b}, value "
                        f"{self.bits * e + k} is bit {self.registers.index(t, self.bits * e + k)}")
        if b % self.bits:
            return f"its bits start at bit {b}, not at a multiple of {self.bits}"
        if b >= self.tile_rows * ROW_BITS:
            return f"its bits start at bit {b}, outside the tile of {self.tile_rows} rows of {ROW_BITS} bits"
        if self.addresser(b // ROW_BITS) is None:
            return f"its bits are in tile row {b // ROW_BITS}, whose address no thread gives"
        return ""

    def holds(self, t: int, i: int) -> bool:
        return t < self.threads and i < self.elements and not self.missing(t, i)

    def cell(self, t: int, i: int) -> tuple:
        b = self.bit(t, i)
        return self.addresser(b // ROW_BITS), (b % ROW_BITS) // self.bits

    def cells(self, points) -> list:
        return [self.cell(t, i) if self.holds(t, i) else None for t, i in points]

    def detail(self, t: int, i: int) -> str:
        b, e = self.bit(t, i), self.element(i)
        row = b // ROW_BITS
        out = f"bit {b}: tile row {row}, bits {b % ROW_BITS}..{b % ROW_BITS + self.bits - 1}"
        if self.memory is not None:
            out += f", the row whose address thread {self.addresser(row)} gives"
        if self.shuffle:
            out += f"; raw element {i} is the atom's element {e}"
        return out

    def outside(self, spec_threads: int, n: int) -> tuple:
        return searched_outside(self.holds, self.threads, self.elements, spec_threads, n)

    def form(self) -> tuple:
        memory = None if self.memory is None else (self.memory.thread, self.memory.threads)
        return ("cute-copy", self.registers.thread, self.registers.value, self.bits, self.tile_rows,
                tuple(self.shuffle), memory, self.threads, self.elements)


def memory_problem(memory: cute_text.Layout, tile_rows: int) -> str | None:
    """A memory layout gives each thread one whole row of the tile (its start address), or it does
    not describe an ldmatrix / stmatrix at all. The first problem in thread order, and within a
    thread its start before its values."""
    if memory.values != ROW_BITS:
        return f"its value mode has {memory.values} values; a thread's row is {ROW_BITS} bits"
    # a TV layout's index is its thread mode's part plus its value mode's, so whether a thread's
    # values run on from its start depends on the value mode alone: asked once, not for every
    # thread (every atom's 32 threads x 128 values were 94,000 evaluations before the workers fork)
    apart = next((v for v in range(1, ROW_BITS)
                  if cute_text.evaluate(memory.value, v) != cute_text.evaluate(memory.value, 0) + v), None)
    for u in range(memory.threads):
        start = memory.index(u, 0)
        if start % ROW_BITS or start >= tile_rows * ROW_BITS:
            return (f"thread {u}'s row starts at bit {start}, not at the start of a row of the tile of {tile_rows} "
                    f"rows of {ROW_BITS} bits")
        if apart is not None:
            return (f"thread {u}'s value {apart} is bit {memory.index(u, apart)}, not {start + apart}: a thread's "
                    f"{ROW_BITS} bits are one row of the tile")
    return None


def parse_shuffle(registers: list, bits: int) -> tuple:
    """The atom's registers as lists of raw register bytes ("tmp0_.x, tmp0_.y, tmp1_.x, tmp1_.y":
    x, y, z, w are bytes 0..3 of tmp0_, tmp1_, ...) -> raw element -> the atom's element. Raises
    ValueError (register index, message) where a list is not a permutation of the raw bytes."""
    per = 32 // bits
    raw: dict = {}
    for j, text in enumerate(registers):
        names = [x.strip() for x in text.split(",")]
        if len(names) != per:
            raise ValueError(j, f"expected {per} bytes (tmpK_.x, tmpK_.y, ...), found {len(names)}")
        for p, name in enumerate(names):
            m = SHUFFLE_NAME.fullmatch(name)
            if m is None:
                raise ValueError(j, f"expected a byte tmpK_.x, .y, .z or .w, found {name!r}")
            src = per * int(m.group(1)) + "xyzw".index(m.group(2))
            if src in raw:
                raise ValueError(j, f"{name} is moved twice")
            raw[src] = per * j + p
    if sorted(raw) != list(range(len(raw))):
        missing = min(set(range(len(raw))) - set(raw))
        raise ValueError(len(registers) - 1, f"raw byte {missing} (tmp{missing // per}_.{'xyzw'[missing % per]}) is "
                                             "never moved: the shuffle is not a permutation")
    return tuple(raw[k] for k in range(len(raw)))
