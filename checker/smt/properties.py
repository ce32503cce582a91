"""The properties of one fragment over one domain, proved with z3.

Each answer is proved, refuted with the lexicographically smallest witness, or unknown. The
witnesses are the same points the plain-Python engine finds by enumeration, so the two engines
can be compared exactly, not just on their verdicts.

`covers` is proved without quantifiers where it can be: in-range and injective over a domain of
exactly rows*cols defined points make the map onto the matrix (pigeonhole). Otherwise it asks the
quantified question, whose `unknown` is reported as such and fails the gate.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import z3

from checker.smt import solver as smt_solver
from checker.smt.terms import first as _first
from checker.smt.terms import formula_terms, scope


@dataclass
class Answer:
    verdict: str  # proved | refuted | unknown
    witness: dict | None = None
    reason: str = ""
    queries: list = field(default_factory=list)
    seconds: float = 0.0


def _ranges(lanes: tuple) -> list:
    out = []
    for lane in lanes:
        if out and out[-1][1] == lane - 1:
            out[-1][1] = lane
        else:
            out.append([lane, lane])
    return out


class Symbolic:
    """The formulas at a symbolic (lane, i), built once per reading and shared by every domain."""

    def __init__(self, layout, width, tag=""):
        self.width = width
        self.l = z3.BitVec(f"lane{tag}", width)
        self.i = z3.BitVec(f"i{tag}", width)
        terms = scope(layout, width, self.l, self.i)
        self.rows = formula_terms(layout.row, terms)
        self.cols = formula_terms(layout.col, terms)
        # a sparse layout's Where block (firstcol, lastcol): pieces, and the value each name takes
        self.bound = {f.target: formula_terms(f, terms) for f in layout.bound}
        self.named = {name: terms.env[name] for name in self.bound}
        self.column_range = layout.column_range
        self.has = z3.And([z3.Or([g for g, _, _ in pieces]) for pieces in self.all_pieces()])
        self.row = _first(self.rows, width)
        self.col = _first(self.cols, width)

    def all_pieces(self) -> list:
        return [self.rows, self.cols, *self.bound.values()]

    def renamed(self, tag: str) -> "Symbolic":
        """The same terms over fresh variables, by substitution rather than a second translation."""
        other = object.__new__(Symbolic)
        other.width = self.width
        other.l = z3.BitVec(f"lane{tag}", self.width)
        other.i = z3.BitVec(f"i{tag}", self.width)
        pairs = [(self.l, other.l), (self.i, other.i)]
        sub = lambda t: z3.substitute(t, *pairs)  # noqa: E731
        other.rows = [(sub(g), sub(v), sub(r)) for g, v, r in self.rows]
        other.cols = [(sub(g), sub(v), sub(r)) for g, v, r in self.cols]
        other.bound = {k: [(sub(g), sub(v), sub(r)) for g, v, r in ps] for k, ps in self.bound.items()}
        other.named = {k: sub(v) for k, v in self.named.items()}
        other.column_range = self.column_range
        other.has, other.row, other.col = sub(self.has), sub(self.row), sub(self.col)
        return other

    def domain(self, lanes, n):
        zero = z3.BitVecVal(0, self.width)
        return z3.And(
            z3.Or([z3.And(z3.ULE(lo, self.l), z3.ULE(self.l, hi)) if lo != hi else self.l == lo
                   for lo, hi in _ranges(lanes)]),
            self.i >= zero, self.i < z3.BitVecVal(n, self.width))


_SYMBOLIC: dict = {}


def symbolic(layout, width: int, tag: str) -> Symbolic:
    """One translation per (layout, width, tag) for the whole run: theorems ask about the same
    fragments many times. The layout is kept with its terms, so a recycled id cannot match."""
    key = (id(layout), width, tag)
    hit = _SYMBOLIC.get(key)
    if hit is not None and hit[0] is layout:
        return hit[1]
    sym = Symbolic(layout, width, tag)
    _SYMBOLIC[key] = (layout, sym)
    return sym


def _exactly_one(pieces):
    return z3.PbEq([(g, 1) for g, _, _ in pieces], 1)


class FragmentProver:
    def __init__(self, name, sym: "Symbolic", lanes, n, rows, cols, dump_dir=None, pair=None):
        self.name, self.width = name, sym.width
        self.lanes, self.n, self.rows, self.cols = lanes, n, rows, cols
        self.dump_dir = dump_dir
        self.p = sym
        self.q = pair
        self.session = smt_solver.Session(name, dump_dir)
        self.session.add(sym.domain(lanes, n))
        self.answers: dict = {}

    def _point_witness(self, out, p):
        m = out.model
        return {"lane": m.eval(p.l, model_completion=True).as_long(),
                "i": m.eval(p.i, model_completion=True).as_long()}

    def _answer(self, out, witness_fn, query):
        if out.status == "unsat":
            return Answer("proved", queries=[query])
        if out.status == "sat":
            return Answer("refuted", witness_fn(out), queries=[query])
        return Answer("unknown", reason=out.reason or "z3 answered unknown", queries=[query])

    def _undefined(self):
        p = self.p
        pieces = p.all_pieces()
        return z3.Or([z3.Not(_exactly_one(ps)) for ps in pieces] +
                     [z3.And(g, z3.Not(req)) for ps in pieces for g, _, req in ps])

    def _outside(self):
        p, w = self.p, self.width
        zero = z3.BitVecVal(0, w)

        def outside(pieces, limit):
            return [z3.And(g, z3.Or(v < zero, v >= z3.BitVecVal(limit, w))) for g, v, _ in pieces]

        return z3.Or(outside(p.rows, self.rows) + outside(p.cols, self.cols))

    def defined(self) -> Answer:
        out = self.session.minimize("defined", [self.p.l, self.p.i], self._undefined())
        return self._answer(out, lambda o: self._point_witness(o, self.p), "defined")

    def in_range(self) -> Answer:
        out = self.session.minimize("in-range", [self.p.l, self.p.i], self._outside())
        return self._answer(out, lambda o: self._point_witness(o, self.p), "in-range")

    def pointwise(self) -> tuple:
        """defined and in-range are both about one point: one query settles both when they hold,
        and each is asked on its own only to find its smallest witness."""
        both = self.session.check("defined+in-range", z3.Or(self._undefined(), self._outside()))
        if both.status == "unsat":
            return Answer("proved", queries=["defined+in-range"]), Answer("proved", queries=["defined+in-range"])
        return self.defined(), self.in_range()

    def injective(self, groups=None) -> Answer:
        """`groups`: lanes of independent MMA computations; two points clash only within one."""
        p = self.p
        q = self.q if self.q is not None else p.renamed("2")
        earlier = z3.Or(z3.ULT(p.l, q.l), z3.And(p.l == q.l, z3.ULT(p.i, q.i)))
        clash = z3.And(q.domain(self.lanes, self.n), p.has, q.has, earlier, p.row == q.row, p.col == q.col)
        if groups:
            clash = z3.And(clash, z3.Or([z3.And(_member(p.l, g), _member(q.l, g)) for g in groups]))
        out = self.session.minimize("injective", [p.l, p.i, q.l, q.i], clash)

        def witness(o):
            m = o.model
            val = lambda t: m.eval(t, model_completion=True).as_long()  # noqa: E731
            return {"lane": val(p.l), "i": val(p.i), "lane2": val(q.l), "i2": val(q.i),
                    "cell": [_signed(val(p.row), self.width), _signed(val(p.col), self.width)]}

        return self._answer(out, witness, "injective")

    def covers(self, defined: Answer, in_range: Answer, injective: Answer, hole_hint=None) -> Answer:
        """Counting first: with every point defined and in range, the map is total into
        rows*cols cells, so |D| = rows*cols makes onto equivalent to injective, and |D| < rows*cols
        leaves a hole. A hole is reported concretely: the smallest one (`hole_hint`, found by
        enumeration) is confirmed here by a quantifier-free query that no point holds it."""
        size = len(self.lanes) * self.n
        cells = self.rows * self.cols
        total = defined.verdict == "proved" and in_range.verdict == "proved"
        verdict, why = None, ""
        if total and size == cells and injective.verdict in ("proved", "refuted"):
            verdict = injective.verdict
            why = (f"pigeonhole: {size} points map {'injectively' if verdict == 'proved' else 'non-injectively'}"
                   f" and totally into {self.rows}x{self.cols} cells")
        elif size < cells:
            verdict, why = "refuted", f"counting: {size} points cannot cover {cells} cells"
        if verdict == "proved":
            return Answer("proved", reason=why, queries=["defined", "in-range", "injective"])
        hole = hole_hint() if callable(hole_hint) else hole_hint
        if hole is not None:
            return self._confirm_hole(hole, why or "a cell no point holds")
        if verdict is None:
            return self._covers_quantified()
        return Answer("unknown", reason=f"{why}, but no hole was found to show", queries=[])

    def _confirm_hole(self, cell, why) -> Answer:
        p, w = self.p, self.width
        out = self.session.check("covers.hole", p.has, p.row == z3.BitVecVal(cell[0], w),
                                 p.col == z3.BitVecVal(cell[1], w))
        if out.status == "unsat":
            return Answer("refuted", {"cell": list(cell)}, reason=why, queries=["covers.hole"])
        if out.status == "sat":
            return Answer("unknown", reason=f"the hole {tuple(cell)} offered by enumeration is held "
                                            f"by lane {self._point_witness(out, p)}", queries=["covers.hole"])
        return Answer("unknown", reason=out.reason, queries=["covers.hole"])

    def _covers_quantified(self) -> Answer:
        w = self.width
        r, c = z3.BitVec("r", w), z3.BitVec("c", w)
        q = self.p.renamed("_q")
        zero = z3.BitVecVal(0, w)
        cell = z3.And(r >= zero, r < z3.BitVecVal(self.rows, w), c >= zero, c < z3.BitVecVal(self.cols, w))
        hole = z3.ForAll([q.l, q.i], z3.Implies(z3.And(q.domain(self.lanes, self.n), q.has), z3.Or(q.row != r, q.col != c)))
        out = smt_solver.quantified_check(f"{self.name}.covers", z3.And(cell, hole), self.dump_dir)
        if out.status == "sat":
            m = out.model
            found = [m.eval(v, model_completion=True).as_long() for v in (r, c)]
            return Answer("refuted", {"cell": found}, reason="quantified query", queries=["covers"])
        return self._answer(out, None, "covers")

    def chunk(self, per_register: int, out_of: int, k: int) -> Answer:
        """properties.chunk's conditions at every point, the register's first element found by
        substituting i - i % per_register for i."""
        p, w = self.p, self.width
        first, last = (p.named[name] for name in p.column_range)
        head = p.i - p.i % z3.BitVecVal(per_register, w)
        at_head = lambda t: z3.substitute(t, (p.i, head))  # noqa: E731
        const = lambda v: z3.BitVecVal(v, w)  # noqa: E731
        bad = z3.Or(last - first + const(1) != const(out_of), first % const(out_of) != const(0),
                    first < const(0), last >= const(k),
                    at_head(p.row) != p.row, at_head(first) != first)
        out = self.session.minimize("chunk", [p.l, p.i], bad)
        return self._answer(out, lambda o: self._point_witness(o, p), "chunk")

    def all(self, hole_hint=None, sparse=None) -> dict:
        """`sparse`: (per_register, out_of, K) of a sparse A, whose chunk property is asked too."""
        t0 = time.perf_counter()
        d, r = self.pointwise()
        t1 = time.perf_counter()
        inj = self.injective()
        t2 = time.perf_counter()
        cov = self.covers(d, r, inj, hole_hint)
        t3 = time.perf_counter()
        # defined and in-range usually share one query: each is charged half of it
        d.seconds = r.seconds = (t1 - t0) / 2
        inj.seconds, cov.seconds = t2 - t1, t3 - t2
        out = {"defined": d, "in-range": r, "injective": inj, "covers": cov}
        if sparse is not None:
            out["chunk"] = self.chunk(*sparse)
            out["chunk"].seconds = time.perf_counter() - t3
        return out


def _member(lane, lanes):
    return z3.Or([z3.And(z3.ULE(lo, lane), z3.ULE(lane, hi)) if lo != hi else lane == lo
                  for lo, hi in _ranges(lanes)])


def prove_computations(name, sym: Symbolic, groups, n, rows, cols, dump_dir=None, pair=None) -> dict | None:
    """All computations of a warp at once: defined and in-range over the union of their lanes,
    injective within each, covers of each by counting. Proves every property of every computation
    in three queries, or returns None so the caller asks per computation for the witnesses."""
    union = tuple(sorted(lane for g in groups for lane in g))
    prover = FragmentProver(name + ".all", sym, union, n, rows, cols, dump_dir, pair)
    t0 = time.perf_counter()
    d, r = prover.pointwise()
    if (d.verdict, r.verdict) != ("proved", "proved"):
        return None
    t1 = time.perf_counter()
    inj = prover.injective(groups)
    t2 = time.perf_counter()
    if inj.verdict != "proved" or any(len(g) * n != rows * cols for g in groups):
        return None
    k = len(groups)
    out = {}
    for g in groups:
        why = f"proved for all {k} computations at once"
        cov = Answer("proved", reason=f"pigeonhole per computation: {len(g) * n} points map injectively and "
                                      f"totally into {rows}x{cols} cells", seconds=0.0)
        out[g] = {"defined": Answer("proved", reason=why, seconds=(t1 - t0) / (2 * k)),
                  "in-range": Answer("proved", reason=why, seconds=(t1 - t0) / (2 * k)),
                  "injective": Answer("proved", reason=why, seconds=(t2 - t1) / k), "covers": cov}
    return out


def _signed(v: int, width: int) -> int:
    return v - (1 << width) if v >= 1 << (width - 1) else v


def prove(name, sym: Symbolic, lanes, n, rows, cols, dump_dir=None, hole_hint=None, pair=None, sparse=None) -> dict:
    return FragmentProver(name, sym, lanes, n, rows, cols, dump_dir, pair).all(hole_hint, sparse)
