"""scale-rows: a lane's scale factor scales the A rows (B column) that lane holds. Each is a cell
equation (checker.theorems.equation), proved by both engines over the lanes the selector picks.

  SF_A   the lane's SF_A elements lie in the row of scale_A that its element a(E * (%laneid % 2))
         of the dense A of the same instruction lies in (E: the first element of row groupID + 8;
         m16n8k32 A.i8 at .scale_vec::1X, m16n8k64 A.i4 at 2X and 4X): the thread pair of quad g
         holds the scale factors of exactly the rows groupID and groupID + 8 its quad's A holds
  SF_B   the lane's SF_B elements lie in the column of scale_B that its b0 of the dense B lies in
         (groupID)

Every point property of a scale factor still holds of a reading that swaps the rows of one pair
(row = 2 * groupID + %laneid % 2 is a bijection onto the 16 rows too); only this ties a reading
to the document's own A and B fragments. The fragments beside come from the specs beside
(checker/families.py BLOCK_SCALE_A / _B); where one is not there its theorem is not asked."""
from __future__ import annotations

from types import SimpleNamespace

from checker.families import BLOCK_SCALE_A, BLOCK_SCALE_B
from checker.spec.reading import materialize
from checker.theorems.equation import Equation
from checker.theorems.family import TheoremFamily
from checker.theorems.relations import placed
from checker.theorems.run import equation_result
from checker.theorems.warpgroup import Beside, side

PROPERTY = "scale-rows"


def theorems(spec, readings, opts) -> list:
    out = []
    beside = Beside(spec)
    for f in spec.fragments():
        vec = f.id.split(".", 1)[1].split("[", 1)[0]
        r = readings[f.id] if f.id in readings else materialize(f)
        if r.layout is None:
            continue  # its own results say why
        at, name = f.span, f"{spec.shape}/{f.id}"
        if f.operand == "SF_A":
            shape, fid, e = BLOCK_SCALE_A[vec]
            other = beside.reading(shape, fid)
            if other is None:
                continue
            left = side(name, r, at, "i", col="0")
            right = side(f"{shape}/{fid}", other, at, f"{e} * (%laneid % 2)", col="0")
            holds = (f"lane l's scale factors lie in the row of its a{e}·(l % 2) in {shape} {fid}: the pair "
                     "of quad g holds the scale factors of rows groupID and groupID + 8, the rows its quad's A holds")
        else:
            shape, fid = BLOCK_SCALE_B[vec]
            other = beside.reading(shape, fid)
            if other is None:
                continue
            left = side(name, r, at, "i", row="0")
            right = side(f"{shape}/{fid}", other, at, "0", row="0")
            holds = f"lane l's scale factors lie in the column of its b0 in {shape} {fid} (groupID)"
        eq = Equation(f"{spec.shape}.{PROPERTY}.{f.id}", (("i", tuple(range(r.n))),), f.domains()[0][1], left, right, at)
        what = "rows" if f.operand == "SF_A" else "column"
        res = equation_result(eq, opts, spec.path, PROPERTY, f.id, str(at), holds=holds,
                              fails=f"{f.id}'s lanes do not hold the scale factors of the {what} their {fid} holds")
        # at the formula piece that gives the differing cell, as the warpgroup theorems place theirs
        out.append(placed(spec.path, SimpleNamespace(equation=eq, span=eq.span), res))
    return out + beside.errors


FAMILY = TheoremFamily(PROPERTY, 75, "A lane's block scale factors scale the A rows or B column that lane holds",
                       ("mma.block_scale",), lambda a: theorems(a.spec, a.readings, a.opts))
