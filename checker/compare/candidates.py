"""The layouts a user or a library states, each a map (thread, i) -> (row, col) over a domain of
its own, in the matrix's own coordinates (the spec's row and col: B is K x N).

Each kind evaluates itself in plain Python (`cells`) and describes itself to z3 (`form`, plain
data that checker.smt.compare turns into terms). Nothing here runs user text: a CuTe layout is
parsed (checker.compare.cute), bases and tables are numbers, a formula is the checker's own
formula language, lowered like a spec's.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import checker.compare.cute as cute_text

MAX_POINTS = 1 << 20  # a candidate's domain, threads x elements
# entries of a table read from a file: 4x the largest fragment (a wgmma D at N = 256 holds
# 128 threads x 128 elements); a CSV of a million entries made a table z3 choked on
MAX_TABLE = 1 << 16
MAX_BASES = 20
MAX_COORD = 1 << 16
# a layout that holds only some points of its domain (a sparse CuTe layout, a copy atom) is asked
# at each point beyond the spec's when counting them: its domain is bounded where it is read
MAX_SEARCHED = 1 << 16


class Candidate:
    """What the engine (checker.compare.engine) asks of every kind of candidate. Each kind defines
    `kind` (its name in z3's query names), `threads` and `elements` (its domain), `describe()`,
    `holds(t, i)`, `cells(points)` (None where it holds nothing), `detail(t, i)` (how it got a
    cell), `outside(spec_threads, n)` and `form()` (plain data for checker.smt.compare). The two
    below have defaults that a kind overrides where it has more to say."""

    def within(self, spec_threads: int, n: int) -> "Candidate":
        """The candidate z3 is given for a spec of spec_threads x n points: one whose bounding box
        and form are no larger than needed to find the smallest difference. By default the
        candidate itself, whose form is small whatever its domain (a layout's strides, bases,
        formulas); a table narrows itself to the entries that can be that difference."""
        return self

    def missing(self, t: int, i: int) -> str:
        """Why the candidate holds nothing at (t, i) of its domain, for the counterexample's
        sentence; by default nothing to add (a point outside the domain says it by itself)."""
        return ""


def rectangle_outside(threads: int, elements: int, spec_threads: int, n: int) -> tuple:
    """A candidate holding every point of its threads x elements: (how many of them lie outside the
    spec's spec_threads x n, the smallest of those in (t, i) order or None)."""
    count = threads * elements - min(threads, spec_threads) * min(elements, n)
    if threads and elements > n:
        return count, (0, n)
    return count, ((spec_threads, 0) if elements and threads > spec_threads else None)


def searched_outside(holds, threads: int, elements: int, spec_threads: int, n: int) -> tuple:
    """The same for a candidate that holds only some points of its domain, asking `holds` at each."""
    count, first = 0, None
    for t in range(threads):
        for i in range(n if t < spec_threads else 0, elements):
            if holds(t, i):
                count += 1
                first = first or (t, i)
    return count, first


@dataclass(frozen=True)
class Cute(Candidate):
    """A CuTe TV layout: (thread, value) -> an index into a column-major tile (rows x cols). CuTe's
    B is N x K: `transposed` reads the tile's (row, col) as the matrix's (col, row)."""

    layout: cute_text.Layout
    tile: tuple  # (rows, cols) of the tile the index is into
    transposed: bool = False
    kind: str = "cute"
    names: str = "rows x cols"  # what the tile's dimensions are: M x K, N x K, M x N
    # CuTe's sparse_elem<S, T> (include/cute/pointer_sparse.hpp): S logical values of the layout
    # share one stored element, logical value v being element v / S. The layout's tile is the
    # uncompressed operand, K along the tile's columns (A's M x K; B's N x K); element i is held
    # where its S logical values lie in one row and one run of S columns of the tile, and its cell
    # is that row and column / S of the compressed tile, transposed as `transposed` says.
    sparse: int = 1

    @property
    def threads(self) -> int:
        return self.layout.threads

    @property
    def elements(self) -> int:
        return self.layout.values // self.sparse

    def describe(self) -> str:
        tail = f" in sparse_elem<{self.sparse}, T> values" if self.sparse > 1 else ""
        return f"the CuTe layout {self.layout.show()}{tail}"

    def _cell(self, idx: int) -> tuple:
        r, c = idx % self.tile[0], idx // self.tile[0]
        return (c, r) if self.transposed else (r, c)

    def _stored(self, t: int, i: int, index=None):
        """The compressed cell of stored element i, or None where its logical values disagree
        (`index`: the layout's index function, where the caller made it faster). K is the tile's
        column before any transposing: compressing the matrix's column of a transposed B would
        divide N."""
        index = index or self.layout.index
        rows = self.tile[0]
        tiled = {(idx % rows, idx // rows // self.sparse) for idx in (index(t, i * self.sparse + k)
                                                                     for k in range(self.sparse))}
        if len(tiled) != 1:
            return None
        (r, c), = tiled
        return (c, r) if self.transposed else (r, c)

    def cells(self, points) -> list:
        # CuTe's index is the thread mode's part plus the value mode's: each is made once per
        # thread and per value, not once per point (a wgmma D at every N is ~10^6 points)
        threads, elements = self.threads, self.elements
        top_t = min(threads, 1 + max((t for t, _ in points), default=-1))
        top_v = min(elements, 1 + max((i for _, i in points), default=-1)) * self.sparse
        toff = [cute_text.evaluate(self.layout.thread, t) for t in range(top_t)]
        voff = [cute_text.evaluate(self.layout.value, v) for v in range(top_v)]
        if self.sparse > 1:
            def index(t, v):
                return toff[t] + voff[v]
            return [self._stored(t, i, index) if t < threads and i < elements else None for t, i in points]
        return [self._cell(toff[t] + voff[i]) if t < threads and i < elements else None for t, i in points]

    def holds(self, t: int, i: int) -> bool:
        inside = t < self.threads and i < self.elements
        return inside and (self.sparse == 1 or self._stored(t, i) is not None)

    def detail(self, t: int, i: int) -> str:
        rows, cols = self.tile
        if self.sparse > 1:
            idx = [self.layout.index(t, i * self.sparse + k) for k in range(self.sparse)]
            return (f"indices {', '.join(map(str, idx))} (logical values {i * self.sparse}..{i * self.sparse + self.sparse - 1}) "
                    f"of the uncompressed column-major {self.names} tile, {rows} x {cols}; column / {self.sparse}")
        idx = self.layout.index(t, i)
        where = "" if idx < rows * cols else ", outside the tile"
        return f"index {idx} of the column-major {self.names} tile, {rows} x {cols}{where}"

    def outside(self, spec_threads: int, n: int) -> tuple:
        if self.sparse > 1:
            return searched_outside(self.holds, self.threads, self.elements, spec_threads, n)
        return rectangle_outside(self.threads, self.elements, spec_threads, n)

    def form(self) -> tuple:
        return ("cute", self.layout.thread, self.layout.value, self.tile[0], self.transposed, self.threads,
                self.elements, self.sparse)


@dataclass(frozen=True)
class Bases(Candidate):
    """A linear layout over GF(2) (Triton): the cell is the XOR of one basis per set bit of the
    register index i and of the thread index (lane bits, then warp bits)."""

    register: tuple  # ((row, col), ...)
    thread: tuple  # lane bases, then warp bases
    lanes: int = 0  # how many of `thread` are lane bases (the rest are warp bases)
    kind: str = "triton"

    @property
    def threads(self) -> int:
        return 1 << len(self.thread)

    @property
    def elements(self) -> int:
        return 1 << len(self.register)

    def describe(self) -> str:
        show = lambda bs: "[" + ", ".join(f"[{r}, {c}]" for r, c in bs) + "]"  # noqa: E731
        warp = f", warp {show(self.thread[self.lanes:])}" if len(self.thread) > self.lanes else ""
        return f"the linear layout register {show(self.register)}, lane {show(self.thread[:self.lanes])}{warp}"

    def holds(self, t: int, i: int) -> bool:
        return t < self.threads and i < self.elements

    def cell(self, t: int, i: int) -> tuple:
        r = c = 0
        for bases, x in ((self.thread, t), (self.register, i)):
            for j, (br, bc) in enumerate(bases):
                if x >> j & 1:
                    r, c = r ^ br, c ^ bc
        return r, c

    def cells(self, points) -> list:
        return [self.cell(t, i) if self.holds(t, i) else None for t, i in points]

    def detail(self, t: int, i: int) -> str:
        return "the XOR of the bases of the set bits of the register and thread indices"

    def outside(self, spec_threads: int, n: int) -> tuple:
        return rectangle_outside(self.threads, self.elements, spec_threads, n)

    def form(self) -> tuple:
        return ("bases", self.thread, self.register, self.threads, self.elements)


@dataclass(frozen=True)
class Formula(Candidate):
    """row and col as formulas of the checker's language over the thread index and i (MLIR's
    affine maps, JAX's formulas). `transposed`: the library's (row, col) is the matrix's (col, row)."""

    layout: object  # checker.formula.lower.Layout
    width: int
    threads: int
    elements: int
    text: str
    transposed: bool = False
    kind: str = "formula"

    def describe(self) -> str:
        return "the formulas " + "; ".join(line.strip() for line in self.text.strip().splitlines())

    def holds(self, t: int, i: int) -> bool:
        return t < self.threads and i < self.elements

    def cells(self, points) -> list:
        from checker.formula.evaluate import cells

        inside = [p for p in points if self.holds(*p)]
        rows, cols = cells(self.layout, inside) if inside else ([], [])
        got = iter(zip(rows, cols))
        out = []
        for p in points:
            if self.holds(*p):
                r, c = next(got)
                out.append((c, r) if self.transposed else (r, c))
            else:
                out.append(None)
        return out

    def detail(self, t: int, i: int) -> str:
        return "the formulas' value"

    def outside(self, spec_threads: int, n: int) -> tuple:
        return rectangle_outside(self.threads, self.elements, spec_threads, n)

    def form(self) -> tuple:
        return ("formula", self.layout, self.width, self.transposed, self.threads, self.elements)


@dataclass(frozen=True)
class Table(Candidate):
    """Explicit (thread, i) -> (row, col) entries: a CSV file, a reference's `table`, or a user's
    function evaluated over the fragment's domain. Where no entry is given, the table holds nothing."""

    entries: dict = field(hash=False)  # (t, i) -> (row, col)
    source: str = "the table"
    kind: str = "table"

    @property
    def threads(self) -> int:
        return 1 + max((t for t, _ in self.entries), default=-1)

    @property
    def elements(self) -> int:
        return 1 + max((i for _, i in self.entries), default=-1)

    def describe(self) -> str:
        return f"{self.source} ({len(self.entries)} entries)"

    def holds(self, t: int, i: int) -> bool:
        return (t, i) in self.entries

    def cells(self, points) -> list:
        return [self.entries.get(p) for p in points]

    def detail(self, t: int, i: int) -> str:
        return "its entry" if (t, i) in self.entries else "no entry"

    def outside(self, spec_threads: int, n: int) -> tuple:
        beyond = [p for p in self.entries if p[0] >= spec_threads or p[1] >= n]
        return len(beyond), min(beyond, default=None)

    def form(self) -> tuple:
        return ("table", tuple(sorted(self.entries.items())), self.threads, self.elements)

    def within(self, spec_threads: int, n: int) -> "Table":
        """The entries z3 needs: those in the spec's domain and the smallest beyond it, the only one
        of those that can be the smallest counterexample (the enumeration counts the others, in
        time linear in their number). 120,000 entries beyond a 256-point fragment made a lookup
        tree z3 took a minute and 3.5 GB over."""
        kept = {p: c for p, c in self.entries.items() if p[0] < spec_threads and p[1] < n}
        _, first = self.outside(spec_threads, n)
        if first is not None:
            kept[first] = self.entries[first]
        return Table(kept, self.source, self.kind)
