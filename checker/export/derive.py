"""A fragment's map, enumerated once, and the forms other tools take, derived from it:

  GF(2) bases    (Triton linear layouts) row and col as the XOR of one basis per set bit of the
                 thread index and of the element index
  inverse bases  the same for (thread, element) as a function of the bits of (row, col); where
                 the sizes are not powers of two, read off the cells with one bit set (`of_cells`)
  CuTe modes     (thread, value) -> index as a sum of coordinate x stride: a mode of size 2 per factor
                 of two of the count, then one mode of its odd rest (N = 24: 12 values, 2 x 2 x 3)

Each derivation gives a candidate from the points with one bit (one coordinate) set; `wrong_*` checks it over the
whole domain (the plain-Python engine) and checker.smt.linear proves it with z3. A map that has
no such form is reported with the first point where the candidate is wrong, never exported.

The thread index is the lane, a warpgroup's thread index (0..127: the figures' T0..T127), or,
for an instruction that runs several MMA computations per warp, the lane's position among its
computation's lanes (CuTe's thread index for SM70's quad-pairs).
"""
from __future__ import annotations

from dataclasses import dataclass

from checker.errors import CheckerError
from checker.formula.evaluate import cells
from checker.spec.reading import materialize


class ExportError(CheckerError):
    """The map has no form of the kind asked for; the message says why."""


@dataclass(frozen=True)
class Map:
    fragment: object
    reading: object
    computation: int | None  # 1-based, or None for the whole warp
    lanes: tuple  # thread index t -> lane
    n: int
    rows: tuple  # [t][i]
    cols: tuple
    defaulted: bool = False  # the computation is 1 because none was named: the header says so

    @property
    def shape(self) -> tuple:
        return self.fragment.rows, self.fragment.cols

    def cell(self, t: int, i: int) -> tuple:
        return self.rows[t][i], self.cols[t][i]


def build(fragment, computation: int | None = None, reading=None) -> Map:
    """`reading`: another than the fragment's (`checker where --as-printed`: the printed text)."""
    reading = reading or materialize(fragment)
    if fragment.computations:
        k = computation or 1
        lanes = fragment.computations[k - 1].lanes
    else:
        # a warp's lanes, a warpgroup's threads; of a block-scale factor, the lanes its selector picks
        (k, lanes), = fragment.domains()
    pts = [(lane, i) for lane in lanes for i in range(reading.n)]
    rows, cols = cells(reading.layout, pts)
    n = reading.n
    return Map(fragment, reading, k, tuple(lanes), n,
               tuple(tuple(rows[t * n:(t + 1) * n]) for t in range(len(lanes))),
               tuple(tuple(cols[t * n:(t + 1) * n]) for t in range(len(lanes))),
               bool(fragment.computations) and computation is None)


def log2(x: int) -> int | None:
    return x.bit_length() - 1 if x > 0 and x & (x - 1) == 0 else None


def _bits_of(m: Map, what: str) -> tuple:
    t_bits, i_bits = log2(len(m.lanes)), log2(m.n)
    r_bits, c_bits = log2(m.shape[0]), log2(m.shape[1])
    if None in (t_bits, i_bits, r_bits, c_bits):
        raise ExportError(f"{what} needs power-of-two sizes: {len(m.lanes)} threads, {m.n} elements, "
                          f"a {m.shape[0]}x{m.shape[1]} matrix")
    return t_bits, i_bits, r_bits, c_bits


@dataclass(frozen=True)
class Bases:
    thread: tuple  # per bit of t: (row, col)
    element: tuple  # per bit of i: (row, col)


def xor_of(bases: tuple, x: int) -> tuple:
    r = c = 0
    for j, (br, bc) in enumerate(bases):
        if x >> j & 1:
            r, c = r ^ br, c ^ bc
    return r, c


def linear(m: Map) -> Bases:
    """The candidate GF(2) bases: the cells of the points with one bit set."""
    t_bits, i_bits, _, _ = _bits_of(m, "a linear layout")
    return Bases(tuple(m.cell(1 << j, 0) for j in range(t_bits)), tuple(m.cell(0, 1 << j) for j in range(i_bits)))


def wrong_linear(m: Map, b: Bases) -> tuple | None:
    """The smallest (t, i) where the XOR of the bases is not the map, with both cells."""
    for t in range(len(m.lanes)):
        for i in range(m.n):
            got = tuple(x ^ y for x, y in zip(xor_of(b.thread, t), xor_of(b.element, i)))
            if got != m.cell(t, i):
                return t, i, m.cell(t, i), got
    return None


@dataclass(frozen=True)
class Inverse:
    row: tuple  # per bit of row: (t, i)
    col: tuple  # per bit of col: (t, i)
    offset: tuple = (0, 0)  # (t, i) at cell (0, 0): an affine inverse where it is not (0, 0)


def inverse(m: Map, b: Bases) -> Inverse:
    """Invert the GF(2) matrix of a linear bijection: (t, i) from the bits of (row, col)."""
    t_bits, i_bits, r_bits, c_bits = _bits_of(m, "an inverse")
    if t_bits + i_bits != r_bits + c_bits:
        raise ExportError("the map is not a bijection onto the matrix: no inverse")
    # column j of the matrix: the (row, col) bits of input bit j (thread bits, then element bits)
    cols_in = [r | c << r_bits for r, c in (*b.thread, *b.element)]
    width = len(cols_in)
    # Gauss-Jordan on [M | I], rows = output bits; each row a pair of bitmasks
    rows = [(sum(((v >> o) & 1) << j for j, v in enumerate(cols_in)), 1 << o) for o in range(width)]
    for j in range(width):
        pivot = next((k for k in range(j, width) if rows[k][0] >> j & 1), None)
        if pivot is None:
            raise ExportError("the map is not a bijection onto the matrix: its GF(2) matrix is singular")
        rows[j], rows[pivot] = rows[pivot], rows[j]
        for k in range(width):
            if k != j and rows[k][0] >> j & 1:
                rows[k] = (rows[k][0] ^ rows[j][0], rows[k][1] ^ rows[j][1])
    # now input bit j = XOR of the output bits in rows[j][1]; per output bit o, the inputs it feeds
    per_out = []
    for o in range(width):
        x = sum(((rows[j][1] >> o) & 1) << j for j in range(width))
        per_out.append((x & ((1 << t_bits) - 1), x >> t_bits))
    return Inverse(tuple(per_out[:r_bits]), tuple(per_out[r_bits:]))


def of_cells(m: Map) -> Inverse | None:
    """The candidate GF(2)-affine inverse where the sizes are not powers of two (wgmma's D at N = 24):
    read off the cells with one bit set, (t, i) at (0, 0) the offset and bit j of row flipping
    (t, i) by what (2^j, 0) holds XOR the offset (of col likewise). An affine map is fixed by its
    values there, and each of them is a cell of the matrix (2^j <= rows - 1 for every bit j of
    rows - 1), so if any affine inverse agrees with the map at every cell, it is this one:
    no elimination to do. `wrong_inverse` and z3 check it everywhere. None where a cell it needs
    is held by no point (then no map onto the whole matrix: the table)."""
    at = {m.cell(t, i): (t, i) for t in range(len(m.lanes)) for i in range(m.n)}
    base = at.get((0, 0))
    picks = [[at.get((1 << j, 0)) for j in range((m.shape[0] - 1).bit_length())],
             [at.get((0, 1 << j)) for j in range((m.shape[1] - 1).bit_length())]]
    if base is None or None in picks[0] + picks[1]:
        return None
    row, col = ([(t ^ base[0], i ^ base[1]) for t, i in p] for p in picks)
    return Inverse(tuple(row), tuple(col), base)


def invert_with(inv: Inverse, row: int, col: int) -> tuple:
    t, i = inv.offset
    for bases, v in ((inv.row, row), (inv.col, col)):
        for j, (bt, bi) in enumerate(bases):
            if v >> j & 1:
                t, i = t ^ bt, i ^ bi
    return t, i


def wrong_inverse(m: Map, inv: Inverse) -> tuple | None:
    for t in range(len(m.lanes)):
        for i in range(m.n):
            got = invert_with(inv, *m.cell(t, i))
            if got != (t, i):
                return t, i, (t, i), got
    return None


# CuTe: the index of a cell. CuTe's A is M x K and C is M x N, column-major; B is indexed as
# N x K (CuTe's B is K-major: the document's B[k][n] is CuTe's B(n, k)).
def index_of(m: Map, row: int, col: int) -> int:
    rows, cols = m.shape
    return col + row * cols if m.fragment.operand == "B" else row + col * rows


@dataclass(frozen=True)
class Cute:
    thread: tuple  # ((size, stride), ...), first mode fastest
    value: tuple


def _modes(sized: list) -> tuple:
    """(size, stride) modes, first fastest, coalesced: a mode whose stride is the previous mode's
    size x stride continues it (2:64 then 3:128 is 6:64)."""
    out = []
    for size, stride in sized:
        if out and out[-1][1] * out[-1][0] == stride:
            out[-1][0] *= size
        else:
            out.append([size, stride])
    return tuple((size, stride) for size, stride in out) or ((1, 0),)


def radix(count: int) -> tuple:
    """The mode sizes of an index 0..count-1: a 2 per factor of two, then the odd rest (one mode).
    CuTe's wgmma accumulator at N = 24 is ((..),(2,2,3)): 12 values, 2 x 2 x 3."""
    sizes = []
    while count > 1 and count % 2 == 0:
        sizes.append(2)
        count //= 2
    return tuple(sizes) + ((count,) if count > 1 else ())


def _sized(sizes: tuple, index_at) -> list:
    """Each mode's stride: the index of the point whose coordinate in that mode is 1, the others 0."""
    out, step = [], 1
    for size in sizes:
        out.append((size, index_at(step)))
        step *= size
    return out


def cute_eval(modes: tuple, x: int) -> int:
    idx = 0
    for size, stride in modes:
        idx += (x % size) * stride
        x //= size
    return idx


def cute(m: Map) -> Cute:
    """The candidate modes: the strides of the points with one coordinate 1, coalesced. A CuTe mode
    may have any size, so an index whose count is not a power of two gets one mode for its odd part
    (the wgmma accumulator's N/8 blocks at N = 24, 40, ...); `wrong_cute` and z3 check the whole map."""
    return Cute(_modes(_sized(radix(len(m.lanes)), lambda t: index_of(m, *m.cell(t, 0)))),
                _modes(_sized(radix(m.n), lambda i: index_of(m, *m.cell(0, i)))))


def wrong_cute(m: Map, c: Cute) -> tuple | None:
    for t in range(len(m.lanes)):
        for i in range(m.n):
            want, got = index_of(m, *m.cell(t, i)), cute_eval(c.thread, t) + cute_eval(c.value, i)
            if want != got:
                return t, i, want, got
    return None
