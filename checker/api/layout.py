"""`Layout`: one fragment's map from (thread, element) to a cell of its matrix, to compute with.

The map is evaluated once, over every thread and element, by the plain-Python engine (the same
evaluation the checker proves with), and kept as two tuples; everything else is read from them.
"""
from __future__ import annotations

from checker.errors import CheckerError


class LayoutError(CheckerError):
    """A question the layout cannot answer: a point outside its domain, a printed text that does
    not parse, an export of a map that is not the one proved."""


class Layout:
    """One fragment of a spec: which cell of its matrix each thread's element holds.

    A point is `(thread, i)`: `thread` the index of the thread among those that hold the fragment
    (the lane, 0..31, for `mma`; 0..127 for a warpgroup) and `i` the element index (3 for `a3`).
    A cell is `(row, col)` of the operand's matrix: A is M x K, B is K x N, C/D is M x N, as the
    document writes them. For a sparse A (`mma.sp`) the cell is in the compressed A, which holds
    only the non-zero elements (`col_range` gives the columns of A an element may come from).

    For `mma.m8n8k4` with `.f16` the warp runs four MMA computations, each on its own eight lanes:
    `cell` takes the lane (0..31) and `holders` names one holder per computation.

    Obtain one with `checker.load(path).fragment(id)`; `as_printed` layouts come from
    `checker.load(path, as_printed=True)`.
    """

    def __init__(self, spec, fragment, reading, as_printed: bool = False, error: str | None = None):
        self._spec = spec  # checker.api.spec.Spec
        self._fragment = fragment  # checker.spec.model.Fragment
        self._reading = reading  # checker.spec.reading.Reading, or None where the printed text does not parse
        self._printed = as_printed
        self._error = error
        self._map = None

    # -- what it is -------------------------------------------------------------------------------
    @property
    def id(self) -> str:
        """The fragment's id in its spec: `A.f16`, `C.float`, `A.sp.i8`."""
        return self._fragment.id

    @property
    def shape(self) -> str:
        """The instruction's shape: `m16n8k16`."""
        return self._spec.shape

    @property
    def operand(self) -> str:
        """`A`, `B`, `C` (C and D share a layout) or, for `wgmma`, `A` or `D`."""
        return self._fragment.operand

    @property
    def types(self) -> tuple:
        """The element types the fragment's table gives it: `('f16', 'bf16')`."""
        return self._fragment.types

    @property
    def rows(self) -> int:
        """Rows of the operand's matrix (of the compressed A for a sparse A)."""
        return self._fragment.rows

    @property
    def cols(self) -> int:
        """Columns of the operand's matrix (of the compressed A for a sparse A)."""
        return self._fragment.cols

    @property
    def threads(self) -> int:
        """How many threads hold the fragment: 32 lanes of a warp, 128 threads of a warpgroup."""
        return self._fragment.threads.count

    @property
    def elements(self) -> int:
        """Elements each thread holds (i runs over 0..elements-1)."""
        self._need()
        return self._reading.n

    @property
    def as_printed(self) -> bool:
        """True: the document's text with every erratum undone; False: the reading the checker proves."""
        return self._printed

    @property
    def sparse(self) -> bool:
        """True for the sparse A of `mma.sp`: cells are in the compressed A."""
        return self._fragment.sparsity is not None

    @property
    def computations(self) -> tuple:
        """The lanes of each MMA computation (`mma.m8n8k4 .f16`), or () where the whole warp runs one."""
        return tuple(c.lanes for c in self._fragment.computations)

    @property
    def errata(self) -> tuple:
        """The errata of this fragment, as `(printed, reading, breaks, where)` tuples of text."""
        return tuple((e.printed, e.value.text, tuple(e.breaks), str(e.span)) for e in self._fragment.errata)

    @property
    def spec(self):
        """The `checker.Spec` this layout belongs to."""
        return self._spec

    @property
    def source(self) -> str:
        """Where the fragment is in its spec file: `specs/m16n8k16.yaml:31:5`."""
        return str(self._fragment.span)

    @property
    def formula(self) -> str | None:
        """The formula block as this layout reads it: printed (as_printed) or with its errata applied."""
        from checker.spec.reading import formula

        f = self._fragment
        if f.formula is None:
            return None
        return f.formula.text if self._printed else formula(f)  # the model keeps the printed text

    # -- the map ----------------------------------------------------------------------------------
    def _need(self) -> None:
        if self._error is not None:
            raise LayoutError(self._error)

    def _table(self):
        if self._map is None:
            from checker.formula.evaluate import cells

            self._need()
            n = self._reading.n
            pts = [(t, i) for t in range(self.threads) for i in range(n)]
            rows, cols = cells(self._reading.layout, pts)
            # a block-scale factor's lanes are those its selector picks: the others hold nothing
            held = set(self._fragment.holders())
            self._map = tuple([x if t in held else -1 for (t, _), x in zip(pts, xs)] for xs in (rows, cols))
        return self._map

    def _index(self, thread: int, i: int) -> int:
        n = self.elements
        if not (_integer(thread) and _integer(i) and 0 <= thread < self.threads and 0 <= i < n):
            raise LayoutError(f"{self.id} takes thread 0..{self.threads - 1} and i 0..{n - 1}, not ({thread!r}, {i!r})")
        return thread * n + i

    def cell(self, thread: int, i: int) -> tuple | None:
        """(row, col) that element `i` of `thread` holds; None where no piece of the formula applies
        (only the printed text of an erratum can leave a point undefined: every reading is proved
        defined), or where the thread holds none (a block-scale factor: the lanes its selector does
        not pick). The printed text may also give a cell outside the matrix; it is returned as given."""
        rows, cols = self._table()
        k = self._index(thread, i)
        if rows[k] == -1 or cols[k] == -1:  # the engine's mark for "no piece applies"
            return None
        return rows[k], cols[k]

    __call__ = cell

    def holders(self, row: int, col: int) -> list:
        """Every (thread, i) whose element is the cell (row, col), in (thread, i) order: one for a
        proved fragment, one per MMA computation for `mma.m8n8k4 .f16`; none, or several, where
        a printed text is not a bijection."""
        if not (_integer(row) and _integer(col) and 0 <= row < self.rows and 0 <= col < self.cols):
            raise LayoutError(f"{self.id} is {self.rows} x {self.cols}: row takes 0..{self.rows - 1}, "
                              f"col 0..{self.cols - 1}, not ({row!r}, {col!r})")
        rows, cols = self._table()
        n = self.elements
        return [(k // n, k % n) for k in range(len(rows)) if rows[k] == row and cols[k] == col]

    def col_range(self, thread: int, i: int) -> tuple:
        """Sparse A only: (firstcol, lastcol), the columns of A whose non-zero element `i` of
        `thread` holds (the metadata says which)."""
        if not self.sparse:
            raise LayoutError(f"{self.id} is not a sparse A: every element has one column")
        from checker.properties.chunk import ranges

        self._index(thread, i)
        _, firsts, lasts = ranges(self._reading.layout, [(thread, i)])
        return firsts[0], lasts[0]

    def entries(self) -> list:
        """The whole map as [(thread, i, row, col), ...] in (thread, i) order, of the threads that
        hold the fragment; row and col are None where no piece applies. `checker table --format
        json` prints the same entries."""
        rows, cols = self._table()
        n = self.elements
        held = set(self._fragment.holders())
        return [(k // n, k % n, None if rows[k] == -1 else rows[k], None if cols[k] == -1 else cols[k])
                for k in range(len(rows)) if k // n in held]

    def to_numpy(self) -> tuple:
        """(rows, cols): two integer numpy arrays of shape (threads, elements); -1 where no piece applies."""
        import numpy as np

        rows, cols = self._table()
        shape = (self.threads, self.elements)
        return np.asarray(rows, dtype=np.int64).reshape(shape), np.asarray(cols, dtype=np.int64).reshape(shape)

    def grid(self) -> list:
        """The matrix as rows of lists of the (thread, i) pairs that hold each cell, as the
        document's figures draw it (a proved fragment: exactly one pair per cell and computation)."""
        out = [[[] for _ in range(self.cols)] for _ in range(self.rows)]
        for t, i, r, c in self.entries():
            if r is not None and c is not None and 0 <= r < self.rows and 0 <= c < self.cols:
                out[r][c].append((t, i))
        return out

    def grid_text(self, band: int = 16) -> str:
        """The matrix as text, `T<thread>:<element>` in each cell, as `checker table` draws it (CuTe's
        print_layout, in the document's notation): `band` columns side by side (0: all)."""
        from checker.errors import UsageError
        from checker.report.tables import fragment_table, render_text

        if not (_integer(band) and band >= 0):
            raise UsageError(f"grid_text(band=...) takes a number of columns, 0 or more (0: all), found {band!r:.60}")
        self._need()
        return render_text(fragment_table(self._spec.model, self._fragment, self._reading),
                           self._fragment.letter, band)

    # -- exports ----------------------------------------------------------------------------------
    def _export(self, to: str, computation: int | None) -> str:
        if self._printed:
            raise LayoutError(f"{self.id} as printed is not the map the checker proves; export the reading "
                              f"(checker.load({self._spec.path!r}).fragment({self.id!r}))")
        from checker.export.checked import export_fragment
        from checker.smt.solver import run_budget

        self._need()
        call = f"checker.load({self._spec.path!r}).fragment({self.id!r}).to_{to}(" + (
            f"computation={computation!r}" if computation is not None else "") + ")"
        with run_budget():
            return export_fragment(self._spec.path, self._spec.model, self._fragment, self._reading, to, computation,
                                   call)

    def to_cute(self, computation: int | None = None) -> str:
        """The CuTe TV layout as C++ and pycute text, proved equal to the spec by z3 and the
        enumeration before it is returned (as `checker export --to cute`). `computation` (1..4)
        picks an `mma.m8n8k4 .f16` computation's lanes."""
        return self._export("cute", computation)

    def to_triton(self, computation: int | None = None) -> str:
        """Triton linear-layout bases over GF(2) (`reg_bases`, `lane_bases`), proved equal to the spec."""
        return self._export("triton", computation)

    def to_cpp(self, computation: int | None = None) -> str:
        """A C++/CUDA header: `row(laneid, i)`, `col(laneid, i)` and the inverse `lane(row, col)`,
        `element(row, col)`, each proved equal to the spec. For wgmma the thread is `tid`, its index in
        the warpgroup (0..127), not %laneid: `row(tid, i)`, and `lane(row, col)` returns a tid."""
        return self._export("cpp", computation)

    def to_python(self, computation: int | None = None) -> str:
        """A Python module with the same four functions as `to_cpp`."""
        return self._export("python", computation)

    def compare(self, candidate, computation=None):
        """Prove `candidate` equal to this layout, or refute it at the smallest (thread, i), by z3
        and the plain-Python enumeration (they must agree), as `checker compare` does. `candidate`
        is a CuTe layout in pycute notation (`"((4,8),(2,2,2)):((32,1),(16,8,128))"`, into the
        column-major tile: A as M x K, B as N x K, C as M x N), another `Layout`, or any function
        `(thread, i) -> (row, col)`, called over this layout's domain only. `computation`: for
        `mma.m8n8k4 .f16`, None (the thread index is the lane, as `cell` numbers it and as
        `checker compare` does by default), an MMA computation (1..4) or "all" (the thread index
        is then the position among its lanes: CuTe's SM70 quad-pair numbering). Returns a
        `checker.compare.Comparison` (`equal`, `difference`, `summary()`, and `equal_with`: the
        other numberings that prove a differing candidate equal). A layout loaded `as_printed` is
        not what the checker proves: it refuses."""
        if self._printed:
            raise LayoutError(f"{self.id} as printed is not the proved layout: compare with "
                              f"checker.load({self._spec.path!r}).fragment({self.id!r})")
        from dataclasses import replace

        from checker.compare import compare_layout, equal_with
        from checker.compare.candidates import Candidate, Table
        from checker.smt.solver import run_budget

        if isinstance(candidate, str):
            from checker.compare.inputs import cute

            candidate = cute(candidate, self._fragment, where="compare()")
        elif not callable(candidate) and not isinstance(candidate, (Layout, Candidate)):
            from checker.errors import UsageError

            raise UsageError(f"compare() takes a CuTe layout as text, a Layout or a function (thread, i) -> "
                             f"(row, col), found {type(candidate).__name__} {candidate!r:.60}")
        elif isinstance(candidate, Layout):
            # over its own domain, as `--table` is: a function called over this layout's domain
            # saw only its first elements (C.float "equal" to A.f16, whose a0..a3 are C's c0..c3)
            other = candidate
            other._need()
            candidate = Table({(t, i): (r, c) for t, i, r, c in other.entries() if r is not None and c is not None},
                              f"{other.shape} {other.id}" + (" as printed" if other._printed else ""))
        with run_budget():
            result = compare_layout(self._fragment, candidate, computation, spec_name=self.shape)
            if result.equal or not self._fragment.computations:
                return result
            return replace(result, equal_with=tuple(equal_with(self._fragment, candidate, computation, self.shape)))

    # -- looks ------------------------------------------------------------------------------------
    def __repr__(self) -> str:
        how = " as printed" if self._printed else ""
        if self._error is not None:
            return f"<Layout {self.shape} {self.id}{how}: does not parse>"
        what = f"{self.operand} {self.rows}x{self.cols}" if not self.sparse else \
            f"compressed {self.operand} {self.rows}x{self.cols}"
        comps = f", {len(self.computations)} MMA computations" if self.computations else ""
        return (f"<Layout {self.shape} {self.id}{how}: {self.threads} threads x {self.elements} elements -> "
                f"{what} ({', '.join('.' + t for t in self.types)}){comps}>")

    def __eq__(self, other) -> bool:
        """Two layouts are equal when they are the same map: same domain, same cell at every point."""
        if not isinstance(other, Layout):
            return NotImplemented
        if self._error or other._error:
            return self is other
        return (self.threads, self.elements, self.rows, self.cols) == \
            (other.threads, other.elements, other.rows, other.cols) and self._table() == other._table()

    __hash__ = None  # equality is by map, which is computed: not hashable


def _integer(x) -> bool:
    """An integer (an int, a numpy integer), and not a bool: a float, a str or True was compared or
    used as an index (a bare TypeError, or True taken as thread 1), where a point takes whole numbers."""
    return hasattr(type(x), "__index__") and not isinstance(x, bool)
