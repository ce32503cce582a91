"""shared-layout: one formula for several table rows (types) is one layout when every row names
the same elements; the registers holding them may still differ, and that is said."""
from __future__ import annotations

from checker.results import PROVED, REFUTED, Result
from checker.theorems.family import TheoremFamily


def shared(spec, readings) -> list:
    """One formula for several table rows (types) is one layout when every row names the same
    elements; the registers holding them may still differ, and that is said."""
    out = []
    for f in spec.fragments():
        if f.id not in readings or len(f.types) < 2:
            continue
        r = readings[f.id]
        lists = [(row, els) for row, els in zip(f.table, r.elements) if els is not None]
        if not lists:
            continue  # sparse A names no elements; its loader holds every row to one range size
        first = lists[0][1]
        bad = [(row, els) for row, els in lists[1:] if els != first]
        types = ", ".join("." + t for t in f.types)
        regs = "; ".join(f"{'/'.join(row.types)}: {row.count} x .{row.kind}" for row in f.table)
        if bad:  # the first position where the lists part ("4 vs 4" said nothing of c3 for c2)
            row, els = bad[0]
            k = next((j for j, (x, y) in enumerate(zip(els, first)) if x != y), min(len(els), len(first)))
            out.append(Result(spec.path, None, "shared-layout", REFUTED, 0.0, str(row.span), {"message": f"elements {', '.join(els[:6])}... differ from {', '.join(first[:6])}..."},
                              subject=f.id, message=f"one formula is given for {types}, but the table row of {'/'.join(row.types)} names "
                                                    f"{[*els, 'no element'][k]} as element {k}, where the {'/'.join(lists[0][0].types)} row names {[*first, 'no element'][k]}"))
            continue
        empty = [row for row, els in zip(f.table, r.elements) if els is None]
        # Claim no more than was read: a row whose Elements cell is empty names nothing to compare.
        names = lambda rows_: ", ".join("/".join("." + t for t in row.types) for row in rows_)  # noqa: E731
        what = f"{len(first)} elements {first[0]}..{first[-1]}"
        if not empty:
            said = f"every table row names the same {what}"
        elif len(lists) == 1:
            said = f"only the {names([lists[0][0]])} row lists its elements ({what}); the Elements cell of {names(empty)} is empty"
        else:
            said = (f"the rows that list elements ({names([row for row, _ in lists])}) name the same {what}; "
                    f"the Elements cell of {names(empty)} is empty")
        out.append(Result(spec.path, None, "shared-layout", PROVED, 0.0, str(f.span), subject=f.id,
                          message=f"one layout for {types}: one formula, and {said}; registers: {regs}"))
    return out


FAMILY = TheoremFamily("shared-layout", 50, "Types sharing one table name the same elements", ("mma",),
                        lambda a: shared(a.spec, a.readings))
