"""covers: every cell of the matrix is held by some (lane, i) of the computation.

z3 decides it without quantifiers where it can: with every point defined and in range the map
is total into rows*cols cells, so a domain of exactly rows*cols points makes onto equivalent to
injective (pigeonhole), and a smaller one leaves a hole. A hole is reported concretely: the
smallest one, found by enumeration, is confirmed by a quantifier-free query that no point holds
it. Otherwise the quantified question is asked, and its `unknown` fails the gate."""
from __future__ import annotations

from checker.properties.base import Finding, Hole, Property
from checker.smt.properties import Answer
from checker.results import PROVED, REFUTED, UNKNOWN


class Covers(Property):
    name = "covers"
    order = 50
    meaning = "Every matrix cell is held by some lane and element"
    kind = "cell"

    def enumerate(self, ev):
        holders, _ = ev.holders
        hole = next(((r, c) for r in range(ev.rows) for c in range(ev.cols) if (r, c) not in holders), None)
        return Hole(hole) if hole else None

    def smt(self, q, answers: dict, hole_hint=None) -> Answer:
        """`answers`: the point and pair properties, already decided for this domain."""
        d, r, inj = answers["defined"], answers["in-range"], answers["injective"]
        size, cells = len(q.lanes) * q.n, q.rows * q.cols
        total = d.verdict == PROVED and r.verdict == PROVED
        verdict, why = None, ""
        if total and size == cells and inj.verdict in (PROVED, REFUTED):
            verdict = inj.verdict
            why = (f"pigeonhole: {size} points map {'injectively' if verdict == 'proved' else 'non-injectively'}"
                   f" and totally into {q.rows}x{q.cols} cells")
        elif size < cells:
            verdict, why = REFUTED, f"counting: {size} points cannot cover {cells} cells"
        if verdict == PROVED:
            return Answer(PROVED, reason=why, queries=["defined", "in-range", "injective"])
        hole = hole_hint() if callable(hole_hint) else hole_hint
        if hole is not None:
            return self._confirm_hole(q, hole, why or "a cell no point holds")
        if verdict is None:
            return self.quantified(q)
        return Answer(UNKNOWN, reason=f"{why}, but no hole was found to show", queries=[])

    @staticmethod
    def _confirm_hole(q, cell, why) -> Answer:
        p = q.p
        out = q.check("covers.hole", p.has, f"(= {p.row} {q.bv(cell[0])})", f"(= {p.col} {q.bv(cell[1])})",
                      values=(q.lane, q.i))
        if out.status == "unsat":
            return Answer(REFUTED, Hole(tuple(cell)), reason=why, queries=["covers.hole"])
        if out.status == "sat":
            held = {"lane": out.model[str(q.lane)], "i": out.model[str(q.i)]}
            return Answer(UNKNOWN, reason=f"the hole {tuple(cell)} offered by enumeration is held "
                                            f"by lane {held}", queries=["covers.hole"])
        return Answer(UNKNOWN, reason=out.reason, queries=["covers.hole"])

    @staticmethod
    def quantified(q) -> Answer:
        w = q.width
        r, c = q.variable("r"), q.variable("c")
        s = q.sym.at("ql", "qi")
        bits = f"(_ BitVec {w})"
        cell = (f"(and (bvsge {r} {q.bv(0)}) (bvslt {r} {q.bv(q.rows)}) (bvsge {c} {q.bv(0)}) "
                f"(bvslt {c} {q.bv(q.cols)}))")
        hole = (f"(forall ((ql {bits}) (qi {bits})) (=> (and {q.in_domain('ql', 'qi')} {s.has}) "
                f"(or (distinct {s.row} {r}) (distinct {s.col} {c}))))")
        out = q.quantified("covers", cell, hole, values=(r, c))
        if out.status == "sat":
            return Answer(REFUTED, Hole((out.model[str(r)], out.model[str(c)])), reason="quantified query",
                          queries=["covers"])
        if out.status == "unsat":
            return Answer(PROVED, queries=["covers"])
        return Answer(UNKNOWN, reason=out.reason or "z3 answered unknown", queries=["covers"])

    def message(self, ex, w) -> Finding:
        cell = list(w.cell)
        f = ex.fragment
        msg = ex.finish(f"{f.id} does not cover {ex.matrix}[{cell[0]}][{cell[1]}]: no lane holds it")
        cex = {"lanes": [], "elements": [], "cell": cell, "message": msg, "replay": ex.replay_cell(*cell)}
        return Finding(cex, str(ex.reading.layout.src.span(ex.reading.layout.row.off)), msg)


PROPERTY = Covers()
