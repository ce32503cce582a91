"""fragment-shape: the register table agrees with itself and with the formulas' domain.

Pure arithmetic on the transcribed table (no solver has anything to add): the header names the
operand's type column, each element list is e0..e(N-1) in order, and for every type the
registers hold exactly N elements of its width (or of its container's, where the row says the
instruction pads the type).
"""
from __future__ import annotations

from checker.properties.base import Finding, Property
from checker.spec import model
from checker.results import PROVED, REFUTED


def _check(reading) -> tuple[str, dict | None]:
    f = reading.fragment
    if reading.header not in f.headers:
        want = " or ".join(f.headers)
        return REFUTED, {"message": f"the type column is headed {reading.header!r}, but matrix {f.operand}'s is {want}",
                           "location": str(f.header.span(0))}
    n = reading.n
    for k, (row, names) in enumerate(zip(f.table, reading.elements)):
        if names is not None:
            letter = f.letter
            expected = [f"{letter}{j}" for j in range(n)]
            if names != expected:
                if len(names) != n:
                    domain = "the formulas' domain" if f.formula is not None else "the reading's list"
                    msg = f"table row {k + 1} lists {len(names)} elements where {domain} has {n}"
                else:
                    j = next(j for j in range(n) if names[j] != expected[j])
                    msg = f"table row {k + 1}: element {j + 1} is {names[j]!r} where {expected[j]!r} is expected"
                return REFUTED, {"message": msg, "location": _list_location(reading, k, row)}
        for t in row.types:
            bits, reg = max(model.TYPE_BITS[t], row.container_bits or 0), model.KIND_BITS[row.kind]
            per = reg // bits if reg % bits == 0 else None
            if per is not None and per > 1 and row.per_register is None and row.count * per == n:
                # no `per_register` reads as one element a register (checker/semantics/registers.py
                # packs by it): left out of a row whose register holds several, it says one
                return REFUTED, {
                    "message": f"table row {k + 1}: a .{row.kind} register holds {per} .{t} elements, but the row "
                               f"gives no per_register (which reads as 1)", "location": str(row.kind_span or row.span)}
            if per is None or row.count * per != n or (row.per_register not in (None, per)):
                said = f", {row.per_register} per register as written" if row.per_register else ""
                return REFUTED, {
                    "message": f"table row {k + 1}: {row.count} .{row.kind} registers of .{t} ({bits}-bit) "
                               f"hold {row.count * (per or 0)} elements{said}; the element list has {n}",
                    "location": str(row.span)}
    if f.sparsity is not None:
        return _sparse(f, n)
    t = f.threads
    if f.formula is None and t.count * n != f.rows * f.cols:
        # drawn only: no formula's domain to hold the element list to, but the threads that hold
        # it (a warp's 32 lanes) must hold the whole matrix
        return REFUTED, {"message": f"{t.count} {t.unit}s x {n} elements do not hold the {f.rows * f.cols} elements of a "
                                      f"{f.rows}x{f.cols} {f.operand}", "location": str(f.table[0].span)}
    return PROVED, None


def _list_location(reading, k: int, row) -> str:
    """Where row k's element list is read from: the printed cell, or the erratum's value where
    that gives the list (an empty cell has no printed text to point at), so the message points at
    the list that was read, never at a cell that is not there."""
    from checker.spec.reading import element_sources

    text = element_sources(reading.fragment, reading.reverted)[k]
    if text is not None and text.text:
        return str(text.span(0))
    return str(row.elements.span(0)) if row.elements is not None else str(row.span)


def _sparse(f, n: int) -> tuple[str, dict | None]:
    """A register's non-zero elements out of its range must be the storage section's granularity,
    the range whole chunks, and the warp must hold exactly the non-zero elements of A."""
    sp = f.sparsity
    for k, row in enumerate(f.table):
        said = f"table row {k + 1}: {row.per_register} non-zero elements out of {row.out_of} consecutive"
        if row.per_register * sp.chunk != row.out_of * sp.nonzero:
            return REFUTED, {"message": f"{said} is not the granularity {sp.nonzero}:{sp.chunk} of {sp.section}",
                               "location": str(row.span)}
        if row.out_of % sp.chunk:
            return REFUTED, {"message": f"{said}: a range of {row.out_of} is not whole {sp.chunk}-wide chunks",
                               "location": str(row.span)}
    if f.threads.count * n != f.rows * sp.k * sp.nonzero // sp.chunk:
        return REFUTED, {"message": f"{f.threads.count} {f.threads.unit}s x {n} elements do not hold the {f.rows * sp.k * sp.nonzero // sp.chunk} "
                                      f"non-zero elements of a {f.rows}x{sp.k} A at {sp.nonzero}:{sp.chunk}",
                           "location": str(f.table[0].span)}
    return PROVED, None


class FragmentShape(Property):
    name = "fragment-shape"
    order = 10
    meaning = "Element count = registers x elements per register; names a0..aN-1"
    kind = "table"

    def applies(self, reading) -> bool:
        return True

    def check(self, reading):
        """(verdict, Finding or None), from the table and the reading's element count alone."""
        verdict, found = _check(reading)
        if found is None:
            return verdict, None
        return verdict, Finding({"message": found["message"]}, found["location"], found["message"])


PROPERTY = FragmentShape()
