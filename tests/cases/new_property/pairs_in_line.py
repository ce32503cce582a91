"""pairs-in-line: elements 2j and 2j+1 of a lane lie in one row or one column of the matrix.

The worked example of CONTRIBUTING "Adding a property": this module copied into
checker/properties/, and its mutant (pairs-in-line/ beside it) copied into tests/cases/mutants/,
are the whole change of code (the committed report and the documentation's pasted outputs that
list the properties are then brought up to date, CONTRIBUTING says how); tests/unit/test_registry.py
makes exactly that change in a copy and proves it.

Why it is a property of the document's layouts: the elements a packed register holds (.f16x2,
four .s8 in a .b32) are neighbours along K, in one row of A or one column of B, and where each
element has a register of its own (.tf32, .f64, .f32 C/D) the document still places 2j and 2j+1 on
one line: one row two columns apart, or one column eight rows apart (A.tf32: groupID and groupID
+ 8). It holds for every fragment of specs/, and for the document's printed text of every erratum,
so adding it leaves `checker prove specs/` green. It can fail: the mutant reads m16n8k8's C.f64
rows `for c0 and c1` / `for c2 and c3` as `for c0 and c3` / `for c1 and c2`, a bijection that
every other property and theorem of the spec accepts, and this one refutes at lane 0 c0, c1.

Not asked of a sparse A: `chunk` already holds each of its registers to one row and one range of
columns, and asking both would make the mutants kept for `chunk` fail twice."""
from __future__ import annotations

from checker.properties.base import Finding, Point, Property


class PairsInLine(Property):
    name = "pairs-in-line"
    order = 70  # after the built-in ones: reported last, asked last by the mutation campaign
    meaning = "Elements 2j and 2j+1 of a lane lie in one row or one column"
    kind = "point"

    def applies(self, reading) -> bool:
        return reading.layout is not None and reading.fragment.sparsity is None

    def enumerate(self, ev):
        """The smallest (lane, i), i odd, whose cell shares neither row nor column with element
        i - 1's; a point no piece gives a cell is `defined`'s to report, not this one's."""
        index = {p: k for k, p in enumerate(ev.points)}
        rows, cols = ev.firsts[0], ev.firsts[1]
        for k, (lane, i) in enumerate(ev.points):
            if i % 2 == 0:
                continue
            h = index[(lane, i - 1)]
            if ev.held[k] and ev.held[h] and rows[k] != rows[h] and cols[k] != cols[h]:
                return Point(lane, i)
        return None

    def violation(self, q) -> str:
        """The same over z3's point: i odd, both points held, row and column both differ."""
        p, before = q.p, q.sym.at(q.lane, f"(bvsub {q.i} {q.bv(1)})")
        return (f"(and (= (bvsmod {q.i} {q.bv(2)}) {q.bv(1)}) {p.has} {before.has} "
                f"(distinct {p.row} {before.row}) (distinct {p.col} {before.col}))")

    def message(self, ex, w) -> Finding:
        (rows0, cols0, pieces0, _), (rows1, cols1, pieces1, _) = ex.pieces_at(w.lane, w.i - 1), ex.pieces_at(w.lane, w.i)
        # the piece the two elements do not share is the suspect (the mutant's slipped line); where
        # they share every piece, the odd element's row piece
        differing = [b for a, b in zip(pieces0, pieces1) if a["at"] != b["at"]]
        loc = (differing[0] if differing else pieces1[0])["at"]
        a, b = ex.letter + str(w.i - 1), ex.letter + str(w.i)
        msg = ex.finish(f"{ex.fragment.id}: lane {w.lane} {a} and {b} lie in no one row or column: "
                        f"{ex.matrix}[{rows0[0][1]}][{cols0[0][1]}] and {ex.matrix}[{rows1[0][1]}][{cols1[0][1]}]")
        cex = {"lanes": [w.lane], "elements": [a, b], "pieces": pieces0 + pieces1,
               "replay": ex.replay(w.lane, w.i - 1) + " ; " + ex.replay(w.lane, w.i), "message": msg}
        return Finding(cex, loc, msg)


PROPERTY = PairsInLine()
