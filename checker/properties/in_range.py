"""in-range: every element lands inside the matrix (0 <= row < rows, 0 <= col < cols) wherever
a piece applies."""
from __future__ import annotations

from checker.properties.base import Finding, Point, Property
from checker.smt.terms import disj


class InRange(Property):
    name = "in-range"
    order = 30
    meaning = "Every element lands inside the matrix"
    kind = "point"

    def enumerate(self, ev):
        p = ev.first_flagged(ev.outside)
        return Point(*p) if p else None

    def violation(self, q) -> str:
        zero = q.bv(0)

        def outside(pieces, limit):
            return [f"(and {g} (or (bvslt {v} {zero}) (bvsge {v} {q.bv(limit)})))" for g, v, _ in pieces]

        return disj(outside(q.p.rows, q.rows) + outside(q.p.cols, q.cols))

    def message(self, ex, w) -> Finding:
        lane, i = w.lane, w.i
        f = ex.fragment
        _, _, pieces, _ = ex.pieces_at(lane, i)
        bad = next(p for p in pieces if p["formula"] in ("row", "col")
                   and not 0 <= p["value"] < (f.rows if p["formula"] == "row" else f.cols))
        limit = f.rows if bad["formula"] == "row" else f.cols
        msg = ex.finish(f"{f.id} is out of range at lane {lane} {ex.letter}{i}: {bad['formula']} = {bad['value']}, "
                        f"outside 0..{limit - 1}")
        cex = {"lanes": [lane], "elements": [f"{ex.letter}{i}"], "pieces": pieces, "replay": ex.replay(lane, i),
               "cell": [p["value"] for p in pieces[:2]] if len(pieces) >= 2 else None, "message": msg}
        return Finding(cex, bad["at"], msg)


PROPERTY = InRange()
