"""What a section of the document gives, besides its figures, that a spec of the section must hold.

The field check (match.py) goes from the spec to the document; complete.py goes back for the
figures. A spec can still drop what no figure stands for, and every check of what remains passes:

- a same-as sentence ("Matrix fragments for multiplicand B and accumulators C and D are the same
  as in case of ..."): deleting its `same_as` entry left the operands with no fragment, and the
  entry's own field check went with it;
- a row of a fragment table (the `.f64` row of m16n8k16's C): deleting it left the type out of the
  spec, and the table's other rows, its figure and its formula all still held;
- an ldmatrix, stmatrix or movmatrix form (checker/report/isa-movement.yaml, read from the
  section's syntax, shape table and notes): the layouts of one figure share it (ldmatrix
  `.m8n16`'s `.x1`, `.x2`, `.x4`: Figure 106), so deleting a layout or one of its forms left every
  figure transcribed.

Each is looked for in the sections complete.py puts in scope, in the versions a spec's section of
that number claims, and counted as held when any spec's section of that number (the ones given
or beside them) holds it. A miss is reported at that section's `section:`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from checker.bounded import shown
from checker.errors import SourceSpan
from checker.verbatim import normalise as nm

# the sentence's subject, up to the verb: "multiplicand B and accumulators C and D" (9.1 wraps the
# sentence after "in case of", never inside the subject; a bullet or none before it)
_SAME_AS = re.compile(r"[ \t]*(?:[-*+][ \t]+)?Matrix fragments for ([^.\n]*?) (?:are|is) the same as\b")


@dataclass(frozen=True)
class Printed:
    """A same-as sentence's subject, or a fragment table row's Fragment cell, of a section in a version."""

    section: str
    version: str
    text: str  # the subject ("accumulators C and D") or the cell, as the document is read
    span: SourceSpan


def same_as_subject(text: str) -> str | None:
    m = _SAME_AS.match(text.replace("`", "").replace("*", ""))
    return " ".join(m.group(1).split()) if m else None


def held(sec: dict) -> tuple:
    """(same-as subjects, forms, Fragment cells) that a spec's section, as written, holds."""
    said = frozenset(filter(None, (same_as_subject(str(x.get("printed", ""))) for x in sec.get("same_as") or []
                                   if isinstance(x, dict))))
    forms = frozenset(str(form) for lay in sec.get("layouts") or [] if isinstance(lay, dict)
                      for form in lay.get("forms") or [])
    cells = [row.get("fragment") for key in ("fragments", "figures_only") for fr in sec.get(key) or []
             if isinstance(fr, dict) for row in fr.get("table") or [] if isinstance(row, dict)]
    cells += [d.get("fragment_cell") for d in sec.get("differences") or [] if isinstance(d, dict)]
    # a tcgen05 layout's operand_text is its table's Fragment cell (the row is in `stated` whole)
    cells += [lay.get("operand_text") for lay in sec.get("layouts") or [] if isinstance(lay, dict)]
    return said, forms, frozenset(nm.prose(c)[0] for c in cells if isinstance(c, str))


def sentences(doc) -> list:
    """Every same-as sentence of the document's files of a known version, outside code blocks."""
    out = []
    for f in doc.files:
        if f.version is None:
            continue
        for line, start, raw in f.prose_lines():
            subject = same_as_subject(raw)
            section = f.section_at(start) if subject else None
            if subject and section:
                out.append(Printed(section, f.version, subject, SourceSpan(f.path, line, 1)))
    return out


def rows(doc) -> list:
    """The Fragment cell of every row of every fragment table (a header row with a `Fragment` and
    an `Elements ...` cell) of the document's files of a known version."""
    out = []
    for f in doc.files:
        if f.version is None:
            continue
        tables: dict = {}
        for c in f.cells:
            tables.setdefault(c.table, {}).setdefault(c.row, []).append(c)
        for table in tables.values():
            header, *body = table.values()
            heads = [c.text for c in header]
            if "Fragment" not in heads or not any(h.startswith("Elements") for h in heads):
                continue
            col = heads.index("Fragment")
            for cells in body:
                if len(cells) > col and cells[col].origins:
                    at = cells[col].origins[0]
                    section = f.section_at(at)
                    if section:
                        out.append(Printed(section, f.version, cells[col].text, f.span(at)))
    return out


def check(doc, sections: list, numbers: set) -> list:
    """[(span, message)] for each same-as sentence, table row and form of a section in scope that
    no spec's section of that number holds."""
    return (_unheld(sentences(doc), sections, numbers, lambda sec: sec.said, lambda p: (
                f"section {p.section} in PTX ISA {p.version} says that the fragments for {p.text} are the same as "
                f"another shape's (printed at {p.span}), and no same_as entry of the section transcribes it: "
                "transcribe it (its operands, the sentence, the fragments it names)"))
            + _unheld(rows(doc), sections, numbers, lambda sec: sec.rows, lambda p: (
                f"section {p.section} in PTX ISA {p.version} prints a fragment table row {shown(p.text, 200)} "
                f"(at {p.span}) that no table of the section's fragments transcribes: transcribe the row (its "
                "types, its Fragment and Elements cells, its registers)"))
            + _unspecified(sections, numbers))


def _unheld(printed: list, sections: list, numbers: set, held, say) -> list:
    """(the first claiming section's span, say(p)) for each p of a section in scope, in a version a
    spec's section of that number claims, that none of those sections holds (`held(section)`)."""
    out = []
    for p in printed:
        mine = [sec for sec in sections if sec.number == p.section and p.version in sec.versions]
        if p.section in numbers and mine and not any(p.text in held(sec) for sec in mine):
            out.append((mine[0].span, say(p)))
    return out


def _unspecified(sections: list, numbers: set) -> list:
    """Each ldmatrix, stmatrix or movmatrix form the PTX ISA defines in a section in scope that no
    layout of a spec's section of that number names."""
    from checker.catalogue import movement_forms, movement_support

    out = []
    for entry in movement_support():
        mine = [sec for sec in sections if sec.number == entry["section"]]
        if entry["section"] not in numbers or not mine:
            continue
        named = frozenset().union(*(sec.forms for sec in mine))
        out += [(mine[0].span, f"the PTX ISA defines {form} in section {entry['section']} "
                               "(checker/report/isa-movement.yaml), and no layout of the section names it in its "
                               "forms: add it to the layout that gives it")
                for form in movement_forms(entry) if form not in named]
    return out
