"""injective: no two (lane, i) of one computation hold the same cell of the matrix."""
from __future__ import annotations

from checker.properties.base import Finding, Pair, Property
from checker.smt.terms import conj, disj


class Injective(Property):
    name = "injective"
    order = 40
    meaning = "No two (lane, element) pairs hold the same matrix cell"
    kind = "pair"

    def enumerate(self, ev):
        _, clash = ev.holders
        if clash is None:
            return None
        (l1, i1), (l2, i2) = ev.points[clash[0]], ev.points[clash[1]]
        return Pair(l1, i1, l2, i2, tuple(clash[2]))

    def violation(self, q) -> str:
        p = q.p
        lane2, i2, s = q.second()
        earlier = f"(or (bvult {p.l} {s.l}) (and (= {p.l} {s.l}) (bvult {p.i} {s.i})))"
        parts = [q.in_domain(lane2, i2), p.has, s.has, earlier, f"(= {p.row} {s.row})", f"(= {p.col} {s.col})"]
        if q.groups:  # independent MMA computations: two points clash only within one
            parts.append(disj(f"(and {q.member(p.l, g)} {q.member(s.l, g)})" for g in q.groups))
        return conj(parts)

    def message(self, ex, w) -> Finding:
        l1, i1, l2, i2, cell = w.lane, w.i, w.lane2, w.i2, list(w.cell)
        letter, f = ex.letter, ex.fragment
        p1, p2 = ex.pieces_at(l1, i1)[2], ex.pieces_at(l2, i2)[2]
        # the piece the two points do not share is the suspect; if they share all, the row piece
        differing = [b for a, b in zip(p1, p2) if a["at"] != b["at"]]
        loc = (differing[-1] if differing else p1[0])["at"]
        msg = ex.finish(f"{f.id} is not injective: lane {l1} {letter}{i1} and lane {l2} {letter}{i2} "
                        f"both hold {ex.matrix}[{cell[0]}][{cell[1]}]")
        cex = {"lanes": [l1, l2], "elements": [f"{letter}{i1}", f"{letter}{i2}"], "cell": cell,
               "pieces": p1 + p2, "replay": ex.replay(l1, i1) + " ; " + ex.replay(l2, i2), "message": msg}
        return Finding(cex, loc, msg)


PROPERTY = Injective()
