"""The properties of one fragment over one domain, proved with z3.

Each answer is proved, refuted with the lexicographically smallest witness, or unknown. The
witnesses are the same points the plain-Python engine finds by enumeration, so the two engines
can be compared exactly, not just on their verdicts.

`covers` is proved without quantifiers where it can be: in-range and injective over a domain of
exactly rows*cols defined points make the map onto the matrix (pigeonhole). Otherwise it asks the
quantified question, whose `unknown` is reported as such and fails the gate.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

from checker.smt.solver import Session, Var, bv, define
from checker.smt.terms import Terms, conj, disj, first, formula_terms


@dataclass
class Answer:
    """z3's answer about one property, with its smallest witness when refuted."""

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


def _member(lane, lanes, width) -> str:
    return disj(f"(and (bvule {bv(lo, width)} {lane}) (bvule {lane} {bv(hi, width)}))" if lo != hi
                else f"(= {lane} {bv(lo, width)})" for lo, hi in _ranges(tuple(sorted(lanes))))


def domain(lane, i, lanes, n, width) -> str:
    return conj([_member(lane, lanes, width), f"(bvsge {i} {bv(0, width)})", f"(bvslt {i} {bv(n, width)})"])


_PREFIX = itertools.count()
_AT = " l i)"


class Symbolic:
    """A layout's formulas as SMT-LIB macros over a (lane, i), defined once per process and
    applied at any point: a second point (injectivity), a moved lane (relations) or a register's
    first element (chunk) is a second application, not a second translation."""

    def __init__(self, layout, width):
        self.width = width
        self.prefix = f"L{next(_PREFIX)}"
        bits = f"(_ BitVec {width})"
        params = f"((l {bits}) (i {bits}))"

        def macro(name, sort, body):
            sym = f"|{self.prefix}.{name}|"
            define(sym, f"(define-fun {sym} {params} {sort} {body})")
            return f"({sym}{_AT}"

        terms = Terms(width, {"lane": "l", "i": "i"})
        for name, expr in layout.definitions:
            terms.env[name] = macro(f"let.{name}", bits, terms.term(expr))
        # a sparse layout's Where block (firstcol, lastcol): pieces, and the first applying one's value
        self.bound = {}
        for formula in layout.bound:
            self.bound[formula.target] = formula_terms(formula, terms, macro)
            terms.env[formula.target] = macro(formula.target, bits, first(self.bound[formula.target], width))
        self.named = {name: terms.env[name] for name in self.bound}
        self.rows = formula_terms(layout.row, terms, macro)
        self.cols = formula_terms(layout.col, terms, macro)
        self.row = macro("row", bits, first(self.rows, width))
        self.col = macro("col", bits, first(self.cols, width))
        self.has = macro("has", "Bool", conj(disj(g for g, _, _ in ps) for ps in self.all_pieces()))
        self.column_range = layout.column_range

    def all_pieces(self) -> list:
        return [self.rows, self.cols, *self.bound.values()]

    def at(self, lane, i) -> "Point":
        return Point(self, str(lane), str(i))


class Point:
    """A layout's terms at one (lane, i), each a macro application; the pieces are made only when
    asked for (the computations theorem applies a layout at 128 points and reads row and col)."""

    def __init__(self, sym: Symbolic, lane: str, i: str):
        self.sym, self.l, self.i = sym, lane, i
        self._tail = f" {lane} {i})"
        self.row, self.col, self.has = (self._ap(t) for t in (sym.row, sym.col, sym.has))

    def _ap(self, call: str) -> str:
        return call[:-len(_AT)] + self._tail

    def _pieces(self, pieces) -> list:
        return [tuple(map(self._ap, piece)) for piece in pieces]

    @property
    def rows(self) -> list:
        return self._pieces(self.sym.rows)

    @property
    def cols(self) -> list:
        return self._pieces(self.sym.cols)

    @property
    def named(self) -> dict:
        return {k: self._ap(v) for k, v in self.sym.named.items()}

    def all_pieces(self) -> list:
        return [self._pieces(ps) for ps in self.sym.all_pieces()]


_SYMBOLIC: dict = {}


def symbolic(layout, width: int) -> Symbolic:
    """One translation per (layout, width) for the whole run: theorems ask about the same
    fragments many times. The layout is kept with its macros, so a recycled id cannot match."""
    key = (id(layout), width)
    hit = _SYMBOLIC.get(key)
    if hit is not None and hit[0] is layout:
        return hit[1]
    sym = Symbolic(layout, width)
    _SYMBOLIC[key] = (layout, sym)
    return sym


def _exactly_one(pieces) -> str:
    guards = [g for g, _, _ in pieces]
    return conj([disj(guards)] + [f"(not (and {a} {b}))" for a, b in itertools.combinations(guards, 2)])


def _signed(v: int, width: int) -> int:
    return v - (1 << width) if v >= 1 << (width - 1) else v


class FragmentProver:
    """`expect`: the plain-Python engine's answers, {property: (verdict, witness)}, whose smallest
    witnesses z3 confirms instead of searching for its own (solver.Session.minimize)."""

    def __init__(self, name, sym: Symbolic, lanes, n, rows, cols, dump_dir=None, expect=None):
        self.name, self.width = name, sym.width
        self.lanes, self.n, self.rows, self.cols = lanes, n, rows, cols
        self.dump_dir = dump_dir
        self.sym = sym
        self.lane, self.i = Var("lane", sym.width), Var("i", sym.width)
        self.p = sym.at(self.lane, self.i)
        self.session = Session(name, dump_dir)
        self.session.add(domain(self.lane, self.i, lanes, n, sym.width))
        self.expect = expect or {}

    def _hint(self, prop, keys):
        verdict, witness = self.expect.get(prop, (None, None))
        if verdict != "refuted" or not all(k in (witness or {}) for k in keys):
            return None  # nothing to confirm: z3 searches on its own
        return tuple(witness[k] for k in keys)

    def _point_witness(self, out):
        return {"lane": out.model[str(self.lane)], "i": out.model[str(self.i)]}

    def _answer(self, out, witness_fn, query):
        if out.status == "unsat":
            return Answer("proved", queries=[query])
        if out.status == "sat":
            return Answer("refuted", witness_fn(out), queries=[query])
        return Answer("unknown", reason=out.reason or "z3 answered unknown", queries=[query])

    def _undefined(self) -> str:
        pieces = self.p.all_pieces()
        return disj([f"(not {_exactly_one(ps)})" for ps in pieces] +
                    [f"(and {g} (not {req}))" for ps in pieces for g, _, req in ps])

    def _outside(self) -> str:
        p, w = self.p, self.width

        def outside(pieces, limit):
            return [f"(and {g} (or (bvslt {v} {bv(0, w)}) (bvsge {v} {bv(limit, w)})))" for g, v, _ in pieces]

        return disj(outside(p.rows, self.rows) + outside(p.cols, self.cols))

    def _pointwise(self, prop, violation) -> Answer:
        out = self.session.minimize(prop, [self.lane, self.i], violation, expect=self._hint(prop, ("lane", "i")))
        return self._answer(out, self._point_witness, prop)

    def defined(self) -> Answer:
        return self._pointwise("defined", self._undefined())

    def in_range(self) -> Answer:
        return self._pointwise("in-range", self._outside())

    def pointwise(self) -> tuple:
        """defined and in-range are both about one point: one query settles both when they hold,
        and each is asked on its own only to find its smallest witness."""
        both = self.session.check("defined+in-range", f"(or {self._undefined()} {self._outside()})")
        if both.status == "unsat":
            return Answer("proved", queries=["defined+in-range"]), Answer("proved", queries=["defined+in-range"])
        return self.defined(), self.in_range()

    def _clash(self, groups=None) -> tuple:
        """(two points that hold one cell, as a violation; the second point's variables)."""
        p, w = self.p, self.width
        lane2, i2 = Var("lane2", w), Var("i2", w)
        q = self.sym.at(lane2, i2)
        earlier = f"(or (bvult {p.l} {q.l}) (and (= {p.l} {q.l}) (bvult {p.i} {q.i})))"
        parts = [domain(lane2, i2, self.lanes, self.n, w), p.has, q.has, earlier,
                 f"(= {p.row} {q.row})", f"(= {p.col} {q.col})"]
        if groups:
            parts.append(disj(f"(and {_member(p.l, g, w)} {_member(q.l, g, w)})" for g in groups))
        return conj(parts), lane2, i2

    def injective(self, groups=None) -> Answer:
        """`groups`: lanes of independent MMA computations; two points clash only within one."""
        p, w = self.p, self.width
        clash, lane2, i2 = self._clash(groups)
        out = self.session.minimize("injective", [self.lane, self.i, lane2, i2], clash,
                                    values=(p.row, p.col), expect=self._hint("injective", ("lane", "i", "lane2", "i2")))

        def witness(o):
            m = o.model
            return {"lane": m[str(self.lane)], "i": m[str(self.i)], "lane2": m[str(lane2)], "i2": m[str(i2)],
                    "cell": [_signed(m[p.row], w), _signed(m[p.col], w)]}

        return self._answer(out, witness, "injective")

    def all_hold(self, groups=None, sparse=None) -> bool:
        """One query for every property that is about the points (defined, in-range, injective,
        and chunk where asked): each is a violation, so none happens exactly when their
        disjunction is unsat. That is the common case, and it costs one query instead of three;
        anything else (sat, unknown) is settled property by property, for its smallest witness.
        Not asked where the plain-Python engine already found a violation."""
        if any(self.expect.get(prop, ("proved",))[0] == "refuted" for prop in ("defined", "in-range", "injective", "chunk")):
            return False
        parts = [self._undefined(), self._outside(), self._clash(groups)[0]]
        if sparse is not None:
            parts.append(self._chunk_violation(*sparse))
        return self.session.check("all", disj(parts)).status == "unsat"

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
        out = self.session.check("covers.hole", p.has, f"(= {p.row} {bv(cell[0], w)})",
                                 f"(= {p.col} {bv(cell[1], w)})", values=(self.lane, self.i))
        if out.status == "unsat":
            return Answer("refuted", {"cell": list(cell)}, reason=why, queries=["covers.hole"])
        if out.status == "sat":
            return Answer("unknown", reason=f"the hole {tuple(cell)} offered by enumeration is held "
                                            f"by lane {self._point_witness(out)}", queries=["covers.hole"])
        return Answer("unknown", reason=out.reason, queries=["covers.hole"])

    def _covers_quantified(self) -> Answer:
        w = self.width
        r, c = Var("r", w), Var("c", w)
        q = self.sym.at("ql", "qi")
        bits = f"(_ BitVec {w})"
        cell = f"(and (bvsge {r} {bv(0, w)}) (bvslt {r} {bv(self.rows, w)}) (bvsge {c} {bv(0, w)}) (bvslt {c} {bv(self.cols, w)}))"
        hole = (f"(forall ((ql {bits}) (qi {bits})) (=> (and {domain('ql', 'qi', self.lanes, self.n, w)} {q.has}) "
                f"(or (distinct {q.row} {r}) (distinct {q.col} {c}))))")
        out = Session(f"{self.name}.covers", self.dump_dir, quantified=True).check("quantified", cell, hole, values=(r, c))
        if out.status == "sat":
            return Answer("refuted", {"cell": [out.model[str(r)], out.model[str(c)]]}, reason="quantified query",
                          queries=["covers"])
        return self._answer(out, None, "covers")

    def _chunk_violation(self, per_register: int, out_of: int, k: int) -> str:
        """properties.chunk's conditions at every point, the register's first element found by
        applying the layout at i - i % per_register."""
        p, w = self.p, self.width
        name_first, name_last = self.sym.column_range
        head = self.sym.at(self.lane, f"(bvsub {self.i} (bvsmod {self.i} {bv(per_register, w)}))")
        first_, last = p.named[name_first], p.named[name_last]
        return disj([f"(distinct (bvadd (bvsub {last} {first_}) {bv(1, w)}) {bv(out_of, w)})",
                     f"(distinct (bvsmod {first_} {bv(out_of, w)}) {bv(0, w)})",
                     f"(bvslt {first_} {bv(0, w)})", f"(bvsge {last} {bv(k, w)})",
                     f"(distinct {head.row} {p.row})", f"(distinct {head.named[name_first]} {first_})"])

    def chunk(self, per_register: int, out_of: int, k: int) -> Answer:
        return self._pointwise("chunk", self._chunk_violation(per_register, out_of, k))

    def all(self, hole_hint=None, sparse=None) -> dict:
        """`sparse`: (per_register, out_of, K) of a sparse A, whose chunk property is asked too."""
        t0 = time.perf_counter()
        if self.all_hold(sparse=sparse):
            d, r, inj = (Answer("proved", queries=["all"]) for _ in range(3))
            chunk = Answer("proved", queries=["all"]) if sparse is not None else None
        else:
            d, r = self.pointwise()
            inj = self.injective()
            chunk = self.chunk(*sparse) if sparse is not None else None
        t1 = time.perf_counter()
        cov = self.covers(d, r, inj, hole_hint)
        t2 = time.perf_counter()
        # the queries answer several properties at once: each is charged its share
        asked = [d, r, inj] + ([chunk] if chunk is not None else [])
        for a in asked:
            a.seconds = (t1 - t0) / len(asked)
        cov.seconds = t2 - t1
        out = {"defined": d, "in-range": r, "injective": inj, "covers": cov}
        if chunk is not None:
            out["chunk"] = chunk
        return out


def prove_computations(name, sym: Symbolic, groups, n, rows, cols, dump_dir=None) -> dict | None:
    """All computations of a warp at once: defined and in-range over the union of their lanes,
    injective within each, covers of each by counting. Proves every property of every computation
    in one query, or returns None so the caller asks per computation for the witnesses."""
    union = tuple(sorted(lane for g in groups for lane in g))
    prover = FragmentProver(name + ".all", sym, union, n, rows, cols, dump_dir)
    t0 = time.perf_counter()
    if any(len(g) * n != rows * cols for g in groups) or not prover.all_hold(groups):
        return None
    t1 = time.perf_counter()
    k = len(groups)
    out = {}
    for g in groups:
        why = f"proved for all {k} computations at once"
        cov = Answer("proved", reason=f"pigeonhole per computation: {len(g) * n} points map injectively and "
                                      f"totally into {rows}x{cols} cells", seconds=0.0)
        out[g] = {"defined": Answer("proved", reason=why, seconds=(t1 - t0) / (3 * k)),
                  "in-range": Answer("proved", reason=why, seconds=(t1 - t0) / (3 * k)),
                  "injective": Answer("proved", reason=why, seconds=(t1 - t0) / (3 * k)), "covers": cov}
    return out


def prove(name, sym: Symbolic, lanes, n, rows, cols, dump_dir=None, hole_hint=None, sparse=None,
          expect=None) -> dict:
    return FragmentProver(name, sym, lanes, n, rows, cols, dump_dir, expect).all(hole_hint, sparse)
