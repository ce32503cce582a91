"""same-row-pairs: elements 2j and 2j+1 of a lane lie in one row of the matrix.

The worked example of CONTRIBUTING "Adding a property": this one module, copied into
checker/properties/, is the whole change (tests/unit/test_registry.py does exactly that). It
holds for A and C/D of the m16n8 shapes and fails for their B, whose pairs run down a column."""
from __future__ import annotations

from checker.properties.base import Finding, Point, Property


class SameRowPairs(Property):
    name = "same-row-pairs"
    order = 70  # after the built-in ones
    meaning = "Elements 2j and 2j+1 of a lane lie in one row"
    kind = "point"

    def enumerate(self, ev):
        """The smallest (lane, i), i odd, whose row differs from element i - 1's."""
        index = {p: k for k, p in enumerate(ev.points)}
        rows = ev.firsts[0]
        for k, (lane, i) in enumerate(ev.points):
            if i % 2 and rows[k] != rows[index[(lane, i - 1)]]:
                return Point(lane, i)
        return None

    def violation(self, q) -> str:
        before = q.sym.at(q.lane, f"(bvsub {q.i} {q.bv(1)})")
        return f"(and (= (bvsmod {q.i} {q.bv(2)}) {q.bv(1)}) (distinct {q.p.row} {before.row}))"

    def message(self, ex, w) -> Finding:
        rows = ex.pieces_at(w.lane, w.i)[0], ex.pieces_at(w.lane, w.i - 1)[0]
        msg = ex.finish(f"{ex.fragment.id}: lane {w.lane} {ex.letter}{w.i - 1} and {ex.letter}{w.i} lie in rows "
                        f"{rows[1][0][1]} and {rows[0][0][1]}")
        cex = {"lanes": [w.lane], "elements": [f"{ex.letter}{w.i - 1}", f"{ex.letter}{w.i}"],
               "replay": ex.replay(w.lane, w.i), "message": msg}
        return Finding(cex, str(ex.reading.layout.src.span(ex.reading.layout.row.off)), msg)


PROPERTY = SameRowPairs()
