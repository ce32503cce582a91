"""defined: exactly one piece of every formula applies at every (lane, i), and a piece's local
definitions are used only inside their own `for` clause."""
from __future__ import annotations

from checker.properties.base import Finding, Point, Property
from checker.smt.properties import exactly_one
from checker.smt.terms import disj


class Defined(Property):
    name = "defined"
    order = 20
    meaning = "Exactly one formula piece applies for every lane and element"
    kind = "point"

    def enumerate(self, ev):
        p = ev.first_flagged(ev.undefined)
        return Point(*p) if p else None

    def violation(self, q) -> str:
        pieces = q.p.all_pieces()
        return disj([f"(not {exactly_one(ps)})" for ps in pieces] +
                     [f"(and {g} (not {req}))" for ps in pieces for g, _, req in ps])

    def message(self, ex, w) -> Finding:
        lane, i = w.lane, w.i
        _, _, pieces, named = ex.pieces_at(lane, i)
        layout, f = ex.reading.layout, ex.fragment
        loc = None
        bad = next(((t, h, formula) for t, h, formula in named if len(h) != 1), None)
        if bad:
            target, hits, formula = bad
            loc = str(layout.src.span(formula.off))
            desc = f"no piece of '{target} =' applies" if not hits else \
                f"{len(hits)} pieces of '{target} =' apply (pieces {', '.join(str(k + 1) for k, _, _ in hits)})"
        else:
            desc = "a local definition is used outside its 'for' clause"
        msg = ex.finish(f"{f.id} is not defined at lane {lane} {ex.letter}{i}: {desc}")
        cex = {"lanes": [lane], "elements": [f"{ex.letter}{i}"], "pieces": pieces, "replay": ex.replay(lane, i),
               "message": msg}
        return Finding(cex, loc, msg)


PROPERTY = Defined()
