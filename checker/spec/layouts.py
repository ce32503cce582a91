"""`layouts:` and `compositions:` of an ldmatrix / stmatrix / movmatrix spec -> the model.

The document gives these layouts in words ("A group of four threads loads an entire row of the
matrix") and figures (104-110) only, so a layout carries a reading of its figure as row/col
formulas, the published encodings it was read from (`read_from`, entries of
checker/references/data) and the document's sentences it rests on (the section's `stated`). It
becomes an ordinary Fragment, so every property is proved of it by both engines."""
from __future__ import annotations

import re

from dataclasses import dataclass

from checker.errors import SourceSpan, SpecError
from checker.families import FAMILIES
from checker import source
from checker.spec import model, provenance
from checker.spec.witness import declared


@dataclass(frozen=True)
class Composition:
    """A layout of this spec, its tile placed on a matrix, must give the same cell as a fragment
    (ldmatrix.x4 of a 16x16 tile is m16n8k16's A): proved by checker.theorems.composition."""

    id: str
    statement: str
    rests_on: tuple
    expect: str  # holds | refuted
    layout: str  # a layout of this spec
    fragment: str  # shape/id
    variables: tuple  # (name, lo, hi)
    src: dict  # element, fragment_element, lane, row, col -> SourceText (absent: the default)
    span: SourceSpan
    fragment_span: SourceSpan | None = None  # its `fragment:` line, where a name that no longer resolves is said
    reach: SourceSpan | None = None  # its `for:`: a layout read in part is refuted there
    witness: dict | None = None  # expect refuted: the smallest point it is refuted at ({lane: .., i: ..})


def fragment(meaning, fr: dict, fpath: list, section: str, family: str) -> model.Fragment:
    fam = FAMILIES[family]
    if not fam.moves:
        raise SpecError(meaning.span(fpath, key=True), f"layouts: are for ldmatrix, stmatrix, movmatrix and tcgen05 specs, "
                        f"not {family}")
    op = fam.operand(fr["operand"])
    if op is None:
        names = ", ".join(o.name for o in fam.operands)
        raise SpecError(meaning.span(fpath + ["operand"]), f"{family} has no operand {fr['operand']}; its operands are {names}")
    matrices = fr.get("matrices", 1)
    values = fam.dims(meaning.doc.value["shape"], {})
    rows, cols = values[op.dims[0]], values[op.dims[1]]
    rows, cols = (rows * matrices, cols) if fam.num_axis == 0 else (rows, cols * matrices)
    reg = fr["registers"]
    n = reg["count"] * reg["per_register"]
    if 32 * n != rows * cols:
        raise SpecError(meaning.span(fpath + ["registers"]), f"32 lanes x {reg['count']} registers x {reg['per_register']} "
                        f"elements = {32 * n}, but the tile is {rows}x{cols} = {rows * cols} elements")
    for k, form in enumerate(fr["forms"]):
        if not form.startswith(family + "."):
            raise SpecError(meaning.span(fpath + ["forms", k]), f"{form} is not a {family} instruction")
    _forms(meaning, fr, fpath, matrices)
    provenance.read_from(meaning, fr, fpath)
    row = model.TableRow((fr["type"],), fr["operand_text"], reg["count"], "b32", reg["per_register"],
                         meaning.stext(fpath + ["elements"]), meaning.span(fpath), None, None, None,
                         meaning.span(fpath + ["operand_text"]))
    reading = fr["reading"]
    return model.Fragment(
        id=fr["id"], operand=fr["operand"], layout=None, header=source.plain(fam.operand(fr["operand"]).headers[0], meaning.span(fpath + ["type"])),
        table=(row,), figures=tuple(fr["figures"]), caption=fr["caption"],
        formula=meaning.stext(fpath + ["reading", "formula"]), errata=(), section=section, computations=(),
        rows=rows, cols=cols, span=meaning.span(fpath), caption_span=meaning.span(fpath + ["caption"]),
        family=family, threads=fam.threads, matrices=matrices, forms=tuple(fr["forms"]),
        read_from=tuple(reading["read_from"]), basis=reading.get("basis"))


def _forms(meaning, fr: dict, fpath: list, matrices: int) -> None:
    """Each form is the instruction this layout is: of the spec's shape, `.num` its matrices,
    its type the layout's, `.trans` as its other forms, and no other layout's of its operand (the probe compiles
    and the report names a layout by its forms, so a form of another layout is a false claim
    that every proof of this layout's reading lets through)."""
    shape = meaning.doc.value["shape"].split(".", 1)[1]
    seen = meaning.__dict__.setdefault("forms_seen", {})
    trans = None
    for k, form in enumerate(fr["forms"]):
        parts, where = form.split("."), meaning.span(fpath + ["forms", k])
        num = next((p for p in parts if re.fullmatch(r"x\d+", p)), None)
        # ldmatrix's type ends the form, or comes before a .b8x16's source format; tcgen05's ends it
        kind = parts[-1] if parts[-2] in ("shared", shape, "trans") or parts[-2] == num else parts[-2]
        why = (f"its shape is not {shape}" if shape not in parts else
               f"it loads {num[1:] if num else 1} matrices, the layout {matrices}" if int((num or "x1")[1:]) != matrices else
               f"its type is .{kind}, the layout's .{fr['type']}" if not kind.startswith(fr["type"]) or
               kind[len(fr["type"]):] not in ("", "x16") else
               "it is .trans where the layout's other forms are not, or the reverse" if trans not in (None, "trans" in parts) else
               "it is a form of layout {} (line {}) too".format(*seen[form, fr["operand"]]) if (form, fr["operand"]) in seen
               else None)
        if why is not None:
            raise SpecError(where, f"{form} is not a form of layout {fr['id']}: {why}")
        trans = "trans" in parts
        seen[form, fr["operand"]] = (fr["id"], where.line)  # movmatrix's a and d are one form's two operands


def compositions(meaning, value: dict, fragments: dict) -> tuple:
    out, seen = [], {}
    for k, c in enumerate(value.get("compositions", [])):
        path = ["compositions", k]
        if c["id"] in seen:
            raise SpecError(meaning.span(path + ["id"]), f"duplicate composition id {c['id']!r} (first at line {seen[c['id']]})")
        seen[c["id"]] = meaning.span(path).line
        if c["layout"] not in fragments:
            raise SpecError(meaning.span(path + ["layout"]), f"no layout {c['layout']!r} in this spec",
                            f"it has {', '.join(sorted(fragments))}")
        variables = []
        for name, (lo, hi) in c["for"].items():
            if lo > hi:
                raise SpecError(meaning.span(path + ["for", name]), f"the range [{lo}, {hi}] of {name} is empty")
            variables.append((name, lo, hi))
        src = {f: meaning.stext(path + [f]) for f in ("element", "fragment_element", "lane", "row", "col") if f in c}
        witness = declared(c.get("witness"), c["expect"], "composition",
                           lambda key: meaning.span(path + ["witness"], key=key), ["lane"] + [v for v, _, _ in variables])
        out.append(Composition(c["id"], c["statement"], tuple(c["rests_on"]), c["expect"], c["layout"], c["fragment"],
                               tuple(variables), src, meaning.span(path), meaning.span(path + ["fragment"]),
                               meaning.span(path + ["for"]), witness))
    return tuple(out)
