"""The z3 engine for the properties of one fragment over one domain of lanes.

It knows how a property is asked, not which properties there are: the prover hands it the
registered ones (checker.properties), each with its violation as SMT-LIB text over this engine's
point. Each answer is proved, refuted with the lexicographically smallest witness, or unknown; the
witnesses are the points the plain-Python engine finds by enumeration, so the two engines are
compared exactly, not just on their verdicts.
"""
from __future__ import annotations

import itertools
import time

from checker.witness import Pair, Point
from checker.smt.solver import Session, Var, bv
from checker.smt.symbolic import Answer, Symbolic, domain, member, signed
from checker.smt.terms import conj, disj
from checker.results import PROVED, REFUTED, UNKNOWN


def exactly_one(pieces) -> str:
    guards = [g for g, _, _ in pieces]
    return conj([disj(guards)] + [f"(not (and {a} {b}))" for a, b in itertools.combinations(guards, 2)])


class FragmentProver:
    """The query context a property's violation is written against: `p` is the point (lane, i)
    ranging over the domain, `second()` a second point for properties about pairs, `groups` the
    lanes of independent MMA computations (two points clash only within one), `sparse` a sparse
    A's (per_register, out_of, K).

    `expect`: the plain-Python engine's answers, {property: (verdict, witness)}, whose smallest
    witnesses z3 confirms instead of searching for its own (solver.Session.minimize)."""

    def __init__(self, name, sym: Symbolic, lanes, n, rows, cols, properties, dump_dir=None, expect=None,
                 sparse=None, groups=None):
        self.name, self.width = name, sym.width
        self.lanes, self.n, self.rows, self.cols = lanes, n, rows, cols
        self.properties = tuple(properties)
        self.dump_dir = dump_dir
        self.sym = sym
        self.sparse, self.groups = sparse, groups
        self.lane, self.i = Var("lane", sym.width), Var("i", sym.width)
        self.p = sym.at(self.lane, self.i)
        self.session = Session(name, dump_dir)
        self.session.add(domain(self.lane, self.i, lanes, n, sym.width))
        self.expect = expect or {}
        self._second = None

    # the vocabulary violations are written in
    def bv(self, value: int) -> str:
        return bv(value, self.width)

    def member(self, lane, lanes) -> str:
        return member(lane, lanes, self.width)

    def second(self) -> tuple:
        """(lane2, i2, its point): a second point of the domain, the same one for every property."""
        if self._second is None:
            lane2, i2 = Var("lane2", self.width), Var("i2", self.width)
            self._second = (lane2, i2, self.sym.at(lane2, i2))
        return self._second

    def variable(self, name: str) -> Var:
        return Var(name, self.width)

    def in_domain(self, lane, i) -> str:
        return domain(lane, i, self.lanes, self.n, self.width)

    # asking
    def _answer(self, out, witness_fn, query):
        if out.status == "unsat":
            return Answer(PROVED, queries=[query])
        if out.status == "sat":
            return Answer(REFUTED, witness_fn(out), queries=[query])
        return Answer(UNKNOWN, reason=out.reason or "z3 answered unknown", queries=[query])

    def ask(self, prop) -> Answer:
        """A point or pair property: the smallest violation, confirming enumeration's where given."""
        violation = prop.violation(self)
        verdict, witness = self.expect.get(prop.name, (None, None))
        hint = witness.key() if verdict == REFUTED and witness is not None else None
        if prop.kind == "point":
            out = self.session.minimize(prop.name, [self.lane, self.i], violation, expect=hint)
            return self._answer(out, lambda o: Point(o.model[str(self.lane)], o.model[str(self.i)]), prop.name)
        lane2, i2, q = self.second()
        out = self.session.minimize(prop.name, [self.lane, self.i, lane2, i2], violation,
                                    values=(self.p.row, self.p.col), expect=hint)

        def pair(o):
            m = o.model
            return Pair(m[str(self.lane)], m[str(self.i)], m[str(lane2)], m[str(i2)],
                        (signed(m[self.p.row], self.width), signed(m[self.p.col], self.width)))

        return self._answer(out, pair, prop.name)

    def _asked(self):
        return [prop for prop in self.properties if prop.kind in ("point", "pair")]

    def all_hold(self) -> bool:
        """One query for every property that is about points, over the lanes of all of a warp's
        MMA computations at once (prove_computations): each is a violation, so none happens
        exactly when their disjunction is unsat. Not asked where the plain-Python engine already
        found a violation."""
        asked = self._asked()
        if any(self.expect.get(prop.name, (PROVED,))[0] == REFUTED for prop in asked):
            return False
        return self.session.check("all", disj(prop.violation(self) for prop in asked)).status == "unsat"

    def all(self, hole_hint=None) -> dict:
        """{property: Answer} for every property given, in the order given."""
        t0 = time.perf_counter()
        asked = self._asked()
        answers = {}
        for p in asked:
            answers[p.name] = self.ask(p)
            answers[p.name].seconds, t0 = time.perf_counter() - t0, time.perf_counter()
        for p in self.properties:
            if p.kind == "cell":
                t1 = time.perf_counter()
                answers[p.name] = p.smt(self, answers, hole_hint)
                answers[p.name].seconds = time.perf_counter() - t1
        return {p.name: answers[p.name] for p in self.properties if p.name in answers}

    def check(self, query: str, *assumptions, values=()):
        return self.session.check(query, *assumptions, values=values)

    def quantified(self, query: str, *assumptions, values=()):
        """A query of its own with quantifiers (covers, where counting cannot decide it)."""
        return Session(f"{self.name}.{query}", self.dump_dir, quantified=True).check("quantified", *assumptions,
                                                                                      values=values)


def prove_computations(name, sym: Symbolic, groups, n, rows, cols, properties, dump_dir=None) -> dict | None:
    """All computations of a warp at once: every point property over the union of their lanes,
    pairs within each, covers of each by counting. Proves every property of every computation in
    one query, or returns None so the caller asks per computation for the witnesses."""
    union = tuple(sorted(lane for g in groups for lane in g))
    prover = FragmentProver(name + ".all", sym, union, n, rows, cols, properties, dump_dir, groups=groups)
    t0 = time.perf_counter()
    if any(len(g) * n != rows * cols for g in groups) or not prover.all_hold():
        return None
    t1 = time.perf_counter()
    k = len(groups)
    asked = prover._asked()
    out = {}
    for g in groups:
        why = f"proved for all {k} computations at once"
        answers = {p.name: Answer(PROVED, reason=why, seconds=(t1 - t0) / (len(asked) * k)) for p in asked}
        for p in properties:
            if p.kind == "cell":
                answers[p.name] = Answer(PROVED, reason=f"pigeonhole per computation: {len(g) * n} points map "
                                                          f"injectively and totally into {rows}x{cols} cells", seconds=0.0)
        out[g] = {p.name: answers[p.name] for p in properties if p.name in answers}
    return out


def prove(name, sym: Symbolic, lanes, n, rows, cols, properties, dump_dir=None, hole_hint=None, sparse=None,
          expect=None) -> dict:
    return FragmentProver(name, sym, lanes, n, rows, cols, properties, dump_dir, expect, sparse).all(hole_hint)
