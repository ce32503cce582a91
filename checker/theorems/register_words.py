"""register-words: what a Fragment cell says of its registers ("four .f16x2 registers", "each
register containing two .f16 elements", wgmma's "N/4 number of") against the table's `kind:`,
`count:` and `per_register:`, and the types a typed register holds. One of the words' checks of
checker/theorems/wording.py, which runs it over every cell."""
from __future__ import annotations

import re

from checker.spec.model import KIND_BITS, TYPE_BITS

_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "e4m3": 8, "e5m2": 8, "e3m2": 8, "e2m3": 8,
         "e2m1": 4, "u8": 8, "s8": 8, "u4": 4, "s4": 4, "b1": 1, "s32": 32}
_REGISTER_BITS = {"f16x2": 32, "b32": 32, "f32": 32, "s32": 32, "f64": 64, "b64": 64}
_NUMBER = {"a single": 1, "single": 1, "one": 1, "two": 2, "four": 4, "eight": 8, "sixteen": 16, "thirty two": 32}
_COUNT = "|".join(sorted(_NUMBER, key=len, reverse=True))
EACH = re.compile(rf"\beach (?:register )?containing ({_COUNT}) (?:non-zero )?`?\.(\w+)`?")
TOTAL = re.compile(rf"registers?,? containing ({_COUNT}) `?\.(\w+)`? elements?\b")
KIND = re.compile(r"`?\.(\w+)`?\s+registers?\b")  # "four .f16x2 registers", "a single `.b32` register"
# "four .f16x2 registers", "of a single `.b32` register", wgmma's "N/4 number of `.f16x2` registers"
_REGISTERS = re.compile(rf"\b(?:({_COUNT})|N/(\d+) number of)\s+`?\.(\w+)`?\s+registers?\b")
_WIDTH = re.compile(r"\b(\d+)-bit registers?\b")  # ldmatrix & co.: "1, 2, or 4 32-bit registers"


class Located(str):
    """A check's answer with the place to point at when that is not its text's, and what to do
    there: a register kind the Fragment cell contradicts is refuted at the row's `kind:`, a
    fragment a "same as" sentence contradicts at its name: the lines an edit changes."""

    def __new__(cls, text: str, span, hint: str):
        self = super().__new__(cls, text)
        self.span, self.hint = span, hint
        return self


def register_kind(cell: str, row) -> str | None:
    """The register kind the cell names against the table's: `kind: f32` under "four .f16x2
    registers" changes what `where`, the packing facts and the reference model read from it,
    and no layout property sees it."""
    named = KIND.search(cell)
    if named and named.group(1) != row.kind:
        return f"names .{named.group(1)} registers, where the table gives kind: {row.kind}"
    width = _WIDTH.search(cell)
    if width and int(width.group(1)) != _REGISTER_BITS.get(row.kind):
        return (f"names {width.group(1)}-bit registers, where the table gives kind: {row.kind} "
                f"({_REGISTER_BITS.get(row.kind, '?')} bits)")
    return None


# A register the document names by a type holds elements of that type (".s32 registers" hold .s32
# accumulators, ".f16x2" the two 16-bit floats); only the bit kinds (.b32, .b64) hold any. Widths
# alone cannot tell .s32 from .f32: wgmma's D rows of each, their types swapped, passed every check.
_HOLDS = {"f32": {"f32"}, "s32": {"s32"}, "f64": {"f64"}, "f16x2": {"f16", "bf16"}}


def register_holds(row) -> str | None:
    """The row's types against the kind of its registers, once the cell has named that kind (so
    an edited kind is refuted at the kind, above, and an edited type here, at the types)."""
    types = getattr(row, "types", ())
    if any(row.kind in _HOLDS and t not in _HOLDS[row.kind] for t in types):
        return (f"has .{row.kind} registers, which hold {' or '.join('.' + h for h in sorted(_HOLDS[row.kind]))} "
                f"elements, where the table row gives types: {dotted(types)}")
    return None


def register_count(cell: str, row, params=(), holds=None) -> str | None:
    """The number of registers the cell names against the table's `count:`. fragment-shape holds
    the count to the element list, and the formulas' domain to both, so a number changed in the
    cell alone ("four .f16x2 registers" made "two") is seen here or nowhere. `holds`: (threads,
    elements) of the fragment, the threads of one computation and the elements of its matrix
    (the compressed A's for a sparse A). Where `count:` registers hold them all, the cell is the
    edit, refuted there with the count's place named; where they do not (the count and the
    element list cut together), the count is, refuted at `count:`, with what it leaves out."""
    said = _REGISTERS.search(cell)
    if said is None:
        return None  # "1, 2, or 4 32-bit registers" (ldmatrix & co.) names the choices of .num, not a count
    if said.group(1):
        n, how = _NUMBER[said.group(1)], said.group(1)
    else:
        value, d = dict(params).get("N"), int(said.group(2))
        if value is None:
            return f"says N/{d} .{said.group(3)} registers, but the shape has no parameter N"
        exact = d != 0 and value % d == 0  # a cell's "N/0" or "N/3" is no count of registers
        n, how = (value // d if exact else None), f"N/{d}" + (f" (at N = {value}: {value / d:g})" if d else "")
    if n == row.count:
        return None
    at, why = getattr(row, "count_span", None), f"says {how} .{said.group(3)} registers, where the table gives count: {row.count}"
    per = _per(row)
    if holds is not None and per is not None and at is not None and row.count * per * holds[0] != holds[1]:
        threads, whole = holds
        return Located(f"{why}: {row.count} x {per} elements x {threads} threads hold {row.count * per * threads} "
                       f"of the fragment's {whole}", at,
                       "the count is the cell's: correct it; if the document prints the cell so, keep it and add an erratum")
    return why + (f" (at {at})" if at else "")


def _per(row) -> int | None:
    """Elements a register of the row holds: as written, else from the widths (fragment-shape's reading)."""
    if row.per_register is not None:
        return row.per_register
    bits = [max(TYPE_BITS.get(t, 0), getattr(row, "container_bits", None) or 0) for t in getattr(row, "types", ())]
    reg = KIND_BITS.get(row.kind)
    return reg // bits[0] if bits and bits[0] and reg and reg % bits[0] == 0 else None


def register_words(cell: str, row, params=(), holds=None) -> str | None:
    kind = register_kind(cell, row)
    if kind is not None:
        return Located(kind, getattr(row, "kind_span", None), "the kind is the cell's: correct it; if the document "
                       "prints the cell so, keep it and add an erratum")
    held = register_holds(row)
    if held is not None:
        return Located(held, getattr(row, "types_span", None), "the types are the registers': correct them; if "
                       "the document prints the table so, keep it and add an erratum")
    count = register_count(cell, row, params, holds)
    if count is not None:
        return count
    each = EACH.search(cell)
    if each:
        n, type_ = _NUMBER[each.group(1)], each.group(2)
        bits = _REGISTER_BITS.get(row.kind, 32)
        if type_ in _BITS and n * _BITS[type_] > bits:
            return f"says each .{row.kind} register holds {each.group(1)} .{type_} elements: {n} x {_BITS[type_]} bits do not fit in {bits}"
        if row.per_register is not None and n != row.per_register:
            return f"says {each.group(1)} elements a register; the table's registers hold {row.per_register}"
        return None
    total = TOTAL.search(cell)
    if total and row.out_of is None:
        n, want = _NUMBER[total.group(1)], row.count * (row.per_register or 1)
        if n != want:
            return f"says {total.group(1)} elements in all; {row.count} x .{row.kind} registers hold {want}"
    return None


def dotted(types) -> str:
    return ", ".join("." + t for t in sorted(types))


# The metadata sentences of sparse wgmma: "a `.b32` register containing eight 4-bit vectors" (or 16)
VECTORS = re.compile(r"`?\.([bfsu]\d+)`?\s+register containing (\w+) (\d+)-bit vectors\b")


def vector_words(sentence: str) -> str | None:
    """What a sentence says a register holds in vectors of bits fits the register: "a `.b32`
    register containing 16 4-bit vectors" is 64 bits in 32 (9.7.15.6.2.3, where the sections
    beside it say 16 2-bit vectors and eight 4-bit vectors of the same register)."""
    said = VECTORS.search(sentence)
    if said is None:
        return None
    word = said.group(2)
    kind, count, bits = said.group(1), int(word) if word.isdigit() else _NUMBER.get(word), int(said.group(3))
    width = _REGISTER_BITS.get(kind)
    if count is None or width is None:
        return f"says {said.group(0)!r}, a count or register kind this check does not read"
    if count * bits != width:
        return f"puts {count} {bits}-bit vectors ({count * bits} bits) in a .{kind} register of {width} bits"
    return None
