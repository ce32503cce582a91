"""chunk: a sparse A layout's column ranges are the ones its table describes.

The Fragment cell says each register holds `per_register` non-zero elements "out of `out_of`
consecutive elements", and the formulas give every element the range [firstcol ... lastcol] it
lies in (the metadata says where in it). So at every (lane, i):

  - lastcol - firstcol + 1 = out_of          the printed range is as wide as the table says
  - firstcol is a multiple of out_of          ranges tile a row of A in whole chunks
  - 0 <= firstcol and lastcol < K             the range lies inside A
  - the register's first element has the same row and firstcol: a register's non-zero elements
    come from one range of one row

Together with `injective` and `covers` on the compressed A this makes (lane, register) a
bijection onto the ranges of A.
"""
from __future__ import annotations

from checker.formula.evaluate import cells, environment
from checker.properties.base import Finding, Point, Property
from checker.smt.terms import disj


def sparse_ranges(reading) -> tuple | None:
    """(per_register, out_of, K) of a sparse A: what its ranges are checked against; None for a
    dense fragment."""
    f = reading.fragment
    if f.sparsity is None or reading.layout is None:
        return None
    return f.sparsity.per_register, f.sparsity.out_of, f.sparsity.k


def ranges(layout, points: list) -> tuple:
    """Per point: (row, firstcol, lastcol), -1 where no piece applies."""
    env = environment(layout, points)
    first, last = layout.column_range
    return cells(layout, points)[0], env[first], env[last]


def why(row, first, last, head_row, head_first, out_of: int, k: int) -> tuple | None:
    """What is wrong at one point, in words, and which formula (0: row, 1: the range's first end,
    2: its last) to blame; None where the chunk property holds."""
    if last - first + 1 != out_of:
        return f"its range [{first} ... {last}] is {last - first + 1} wide where the table says {out_of}", 2
    if first % out_of:
        return f"its range starts at column {first}, not a multiple of {out_of}", 1
    if first < 0 or last >= k:
        return f"its range [{first} ... {last}] is outside 0..{k - 1}", 1 if first < 0 else 2
    if (row, first) != (head_row, head_first):
        return (f"it lies in row {row}, range from {first}, but the first element of its register lies in "
                f"row {head_row}, range from {head_first}", 0 if row != head_row else 1)
    return None


def smallest(layout, lanes, n: int, per_register: int, out_of: int, k: int) -> Point | None:
    points = [(lane, i) for lane in lanes for i in range(n)]
    heads = [(lane, i - i % per_register) for lane, i in points]
    rows, firsts, lasts = ranges(layout, points)
    index = {p: x for x, p in enumerate(points)}
    for x, p in enumerate(points):
        h = index[heads[x]]
        if why(rows[x], firsts[x], lasts[x], rows[h], firsts[h], out_of, k):
            return Point(*p)
    return None


def explain(layout, lane: int, i: int, per_register: int, out_of: int, k: int) -> tuple:
    """(what is wrong at the point, the name of the formula to blame)."""
    (row, head_row), (first, head_first), (last, _) = ranges(layout, [(lane, i), (lane, i - i % per_register)])
    found = why(row, first, last, head_row, head_first, out_of, k)
    if found is None:
        return "the chunk property holds here", "row"
    return found[0], ("row", *layout.column_range)[found[1]]


class Chunk(Property):
    name = "chunk"
    order = 60
    meaning = "A sparse A's registers hold whole chunks of one row, as its table describes"
    kind = "point"
    sparse_only = True

    def applies(self, reading) -> bool:
        return sparse_ranges(reading) is not None

    def enumerate(self, ev):
        return smallest(ev.layout, ev.lanes, ev.n, *sparse_ranges(ev.reading))

    def violation(self, q) -> str:
        """The conditions above at every point, the register's first element found by applying
        the layout at i - i % per_register."""
        per_register, out_of, k = q.sparse
        p = q.p
        name_first, name_last = q.sym.column_range
        head = q.sym.at(q.lane, f"(bvsub {q.i} (bvsmod {q.i} {q.bv(per_register)}))")
        first_, last = p.named[name_first], p.named[name_last]
        return disj([f"(distinct (bvadd (bvsub {last} {first_}) {q.bv(1)}) {q.bv(out_of)})",
                     f"(distinct (bvsmod {first_} {q.bv(out_of)}) {q.bv(0)})",
                     f"(bvslt {first_} {q.bv(0)})", f"(bvsge {last} {q.bv(k)})",
                     f"(distinct {head.row} {p.row})", f"(distinct {head.named[name_first]} {first_})"])

    def message(self, ex, w) -> Finding:
        lane, i = w.lane, w.i
        f, layout = ex.fragment, ex.reading.layout
        _, _, pieces, _ = ex.pieces_at(lane, i)
        what, blame = explain(layout, lane, i, *sparse_ranges(ex.reading))
        loc = next((p["at"] for p in pieces if p["formula"] == blame), pieces[0]["at"] if pieces else None)
        msg = ex.finish(f"{f.id} breaks its column ranges at lane {lane} {ex.letter}{i}: {what}")
        cex = {"lanes": [lane], "elements": [f"{ex.letter}{i}"], "pieces": pieces, "replay": ex.replay(lane, i),
               "message": msg}
        return Finding(cex, loc, msg)


PROPERTY = Chunk()
