"""The document's words, checked like its formulas: section titles, captions, Fragment cells,
Elements cells, the mma.sp "same as" sentences, a section's stated sentences, and a row's
Miscellaneous Information cell (wgmma's N) and Elements note (a sparse A's).

Four checks, each a plain reading of what the words claim against what the tables give:

  types-named      a title, caption, Fragment cell or sentence that names types names the ones
                   its tables have (a title: the multiplicand types of its section; a caption: its
                   fragment's types; a Fragment cell: its row's `types:`, its register kinds aside;
                   a "same as" sentence: only types of the section it refers to, and each
                   fragment it names has them: a B its own, a C/D its section's A and B), and
                   "integer" / "floating point" agree with them
  register-words   the registers the cell names (".f16x2 registers", "32-bit registers") are the
                   table's kind, and as many as its `count:` ("four", "a single", wgmma's "N/4
                   number of" at the instance's N); "each register containing N .T elements" fits
                   the register (N x bits(T)) and is the table's per-register count; "containing
                   N elements" without "each" is the row's total; registers of a typed kind hold
                   that type (.s32 registers .s32 elements, .f16x2 the 16-bit floats); a stated
                   sentence's "a .b32 register containing K B-bit vectors" fills the register
  wording          no word doubled ("matrix matrix"), no space before a comma
  elements-listed  every row of a dense fragment's table lists its elements

The reading (every erratum applied) must pass every check; each erratum of words must fail
exactly the checks it declares when its printed text is put back, as formula errata do.
"""
from __future__ import annotations

import re

from checker.results import PROVED, REFUTED, UNKNOWN, Result
from checker.spec.model import WORD_CHECKS, named_types
from checker.theorems.family import TheoremFamily
from checker.theorems.register_words import (EACH, KIND, TOTAL, VECTORS, Located, dotted, register_count,
                                             register_kind, register_words, vector_words)

_INTEGER = frozenset({"u8", "s8", "u4", "s4", "b1", "s32"})


def types_named(text: str, types, kinds=(), exact: bool = True) -> str | None:
    """None, or what is wrong. `exact`: every type of `types` must be named (titles, captions);
    otherwise only: nothing named that `types` lacks ("same as" sentences)."""
    types, named = set(types), named_types(text)
    allowed = types | {k.replace("f16x2", "f16") for k in kinds}
    if named - allowed:
        return f"names {', '.join('.' + t for t in sorted(named - allowed))}, which its tables do not have"
    if exact and named and not types <= named:
        return f"names {', '.join('.' + t for t in sorted(named))} but not {', '.join('.' + t for t in sorted(types - named))}"
    if exact and "integer" in text and types - _INTEGER:
        return f"says integer, but its tables have {', '.join('.' + t for t in sorted(types - _INTEGER))}"
    if exact and "floating point" in text and types & _INTEGER:
        return f"says floating point, but its tables have {', '.join('.' + t for t in sorted(types & _INTEGER))}"
    return None


def cell_element_types(cell: str) -> set:
    """The element types a Fragment cell names: "four .f32 registers" names a register kind,
    "four .f32 elements" a type."""
    return named_types(KIND.sub(" ", cell))


def cell_types(cell: str, row, referee=None, others=frozenset()) -> str | None:
    """The element types a Fragment cell names are exactly its row's `types:`; a cell that names
    none ("of four `.f32` registers.") claims none. Where they differ one side was edited, and
    the place to point at is the side the fragment's other words disagree with. `referee`: the
    types its caption names (else every row's); `others`: those the other rows' cells name. A
    cell naming a type outside the referee, or one another row's cell names, is the edit (".f16"
    made ".u8", or another row's type), refuted at the cell; otherwise the cell is the
    document's and the row's `types:` the edit (a type dropped, two rows' types swapped),
    refuted there. The message names the other place either way."""
    named, have = cell_element_types(cell), set(row.types)
    if not named or named == have:
        return None
    at = getattr(row, "types_span", None)
    if at is not None and referee is not None and named <= set(referee) and not named & set(others):
        return Located(f"names {dotted(named)}, where the table row gives types: {dotted(have)}", at,
                       "the types are the cell's: correct them; if the document prints the cell so, keep it and add "
                       "an erratum")
    return f"names {dotted(named)}, where the table row gives types: {dotted(have)}" + (f" (at {at})" if at else "")


def wording(text: str) -> str | None:
    doubled = re.search(r"\b(\w+) \1\b", text)
    if doubled:
        return f"doubles the word {doubled.group(1)!r}"
    if " ," in text:
        return "has a space before a comma"
    return None


def mended(text: str) -> str:
    """A text with what `wording` finds undone: each doubled word once, no space before a comma."""
    return re.sub(r"\b(\w+) \1\b", r"\1", text).replace(" ,", ",")


def _texts(spec, resolve):
    """Every checked text of a spec: (erratum owner, field, row, text, span, checks) where checks
    maps a check name to a function of the text."""
    for sec in spec.sections:
        # a parametric fragment's instances (wgmma D at every N) print one table: read it once
        frs = tuple({f.span: f for f in reversed(sec.fragments + sec.figures_only)}.values())[::-1]
        ab = tuple(t for f in frs if f.operand in "AB" for t in f.types)
        yield sec, "title", None, sec.title, sec.title_span, {
            "types-named": lambda t, ab=ab: types_named(t, ab), "wording": wording}
        for k, sentence in enumerate(sec.stated):
            yield sec, "stated", k, sentence, sec.stated_spans[k] if sec.stated_spans else sec.title_span, {
                "register-words": vector_words, "wording": wording}
        for same in sec.same_as:
            spans = same.fragment_spans or (same.span,) * len(same.fragments)
            targets = tuple((name, at, *_target(spec, name, resolve)) for name, at in zip(same.fragments, spans))
            # a fragment not at hand (its spec missing or not loading) has no types to hold the
            # sentence to: asked anyway, every type it named was "not in its tables"
            lost = [name for name, _, frag, *_ in targets if frag is None]
            yield same, "same_as", None, same.printed, same.printed_span or same.span, {
                "types-named": (lambda t, targets=targets: same_as_types(t, targets)) if not lost else _Unasked(lost),
                "wording": wording}
        for f in frs:
            if f.caption is not None:
                kinds = tuple(r.kind for r in f.table)
                yield f, "caption", None, f.caption, f.caption_span or f.span, {
                    "types-named": lambda t, f=f, kinds=kinds: types_named(t, f.types, kinds), "wording": wording}
            caption = _apply(f.caption or "", _errata(f, "caption", None), "caption", None)
            referee = named_types(caption) or set(f.types)
            cells = [cell_element_types(_apply(r.fragment, _errata(f, "fragment", k), "fragment", k))
                     for k, r in enumerate(f.table)]
            holds = (len(f.domains()[0][1]), f.rows * f.cols)  # one computation's threads, its matrix
            for k, row in enumerate(f.table):
                others = set().union(*cells[:k], *cells[k + 1:])
                yield f, "fragment", k, row.fragment, row.fragment_span or row.span, {
                    "register-words": lambda t, row=row, f=f, holds=holds: register_words(t, row, f.params, holds),
                    "types-named": lambda t, row=row, referee=referee, others=others: cell_types(t, row, referee, others),
                    "wording": wording}
                if row.elements is not None:
                    yield f, "elements", k, row.elements.text, row.elements.span(0), {"wording": wording}
                for cell, at in row.cell_spans:  # the Miscellaneous cell (wgmma's N), a sparse A's Elements note
                    yield f, cell, k, getattr(row, cell), at, {"wording": wording}
                if f.sparsity is None or f.operand != "A":
                    # a merged cell lists the elements of every row it spans
                    listed = row.elements or row.spanned_by
                    yield f, "elements", k, listed and listed.text, row.span, {
                        "elements-listed": lambda t: None if t else "is empty"}
        for diff in sec.differences:
            # another version's cell stands for one row of the table: it names that row's types
            f = next(x for x in frs if x.id == diff.fragment or x.id.startswith(diff.fragment + "["))
            row = f.table[diff.row - 1]
            yield f, "difference", diff.row - 1, diff.fragment_cell, diff.span, {
                "types-named": lambda t, row=row: cell_types(t, row)}


class _Unasked:
    """A check that cannot be asked, and why: its result is unknown, and an erratum declaring it
    is neither confirmed nor refuted."""

    def __init__(self, lost):
        self.why = (f"cannot be asked: {', '.join(lost)} {'is' if len(lost) == 1 else 'are'} not loaded "
                    "(the same-as theorem says why)")


def _target(spec, name, resolve) -> tuple:
    """(the fragment a "same as" sentence names, the types of its section, those of the
    section's multiplicands, those of its whole spec), or (None, (), (), ()) where no spec beside
    has it (the same-as theorem says so)."""
    shape, fid = name.split("/", 1)
    other = spec if shape == spec.shape else (resolve(shape) if resolve else None)
    for sec in (other.sections if other is not None else ()):
        frs = sec.fragments + sec.figures_only
        frag = next((f for f in frs if f.id == fid or f.id.startswith(fid + "[")), None)
        if frag is not None:
            everywhere = tuple(t for s in other.sections for f in s.fragments + s.figures_only for t in f.types)
            return (frag, tuple(t for f in frs for t in f.types),
                    tuple(t for f in frs if f.operand in ("A", "B") for t in f.types), everywhere)
    return None, (), (), ()


def same_as_types(text: str, targets) -> str | None:
    """A "same as" sentence names the section it refers to by its title ("... with floating point
    type for .f16/.bf16 formats"), so it may name only that section's types; and each fragment it
    is held to (`targets`: (name, span, fragment, section types, its multiplicands' types, its
    spec's types)) must have the multiplicand types it names: a multiplicand its own (.f16/.bf16
    formats are m16n8k16/B.f16, not B.f64 of the same section), an accumulator, which the
    section's multiplicands share, its section's multiplicands'. A type the target's spec has
    elsewhere makes the name wrong (refuted at the name); one it has nowhere, the words (at the
    sentence: `.b16`, an erratum)."""
    named = named_types(text)
    for name, at, frag, _, ab, everywhere in targets:
        if frag is None:
            continue
        mine = frag.operand in ("A", "B")
        have = set(frag.types if mine else ab)
        if (named & set(everywhere)) - have:
            whose = f"{name} has" if mine else f"the multiplicands of the section of {name} have"
            return Located(f"names {', '.join('.' + t for t in sorted(named))}, but {whose} "
                           f"{', '.join('.' + t for t in sorted(have))}", at,
                           "the fragments are the sentence's: correct the name; if the document prints the sentence "
                           "so, keep it and add an erratum")
    return types_named(text, tuple(t for _, _, _, types, _, _ in targets for t in types), exact=False)


def _apply(text, errata, owner_field, row):
    for e in errata:
        if e.field == owner_field and e.row == row:
            text = (text or e.value.text) if e.printed == "" else text.replace(e.printed, e.value.text, 1)
    return text


def _errata(owner, field, row):
    return [e for e in getattr(owner, "errata", ()) if e.words and e.field == field and e.row == row]


def check(spec, resolve=None) -> list:
    """The reading's words pass every check; each erratum of words fails as it declares.
    `resolve`: shape -> its spec, for the fragments a "same as" sentence means."""
    out, texts = [], 0
    for owner, field, row, printed, span, checks in _texts(spec, resolve):
        texts += 1
        errata = _errata(owner, field, row)
        # elements-listed reads the cell as a whole; its erratum is the empty cell filled
        mine = [e for e in errata if (e.printed == "") == ("elements-listed" in checks)]
        subject = _subject(owner, field, row)
        fid = getattr(owner, "id", None) if field in _OF_A_FRAGMENT else None
        read = _apply(printed or "", mine, field, row)
        unasked = {name: fn for name, fn in checks.items() if isinstance(fn, _Unasked)}
        checks = {name: fn for name, fn in checks.items() if name not in unasked}
        for name, fn in unasked.items():
            out.append(Result(spec.path, fid, name, UNKNOWN, 0.0, str(span), subject=None if fid else subject,
                              message=f"{subject} {name} {fn.why}"))
        mine = [e for e in mine if not set(e.breaks) & set(unasked)]  # neither confirmed nor refuted
        for name, fn in checks.items():
            why = fn(read)
            if why is not None:
                at = getattr(why, "span", None) or span
                out.append(Result(spec.path, fid, name, REFUTED, 0.0, str(at), {"text": read[:300]},
                                  subject=None if fid else subject,
                                  message=f"{subject} {why}: {_quote(read)} ({getattr(why, 'hint', _HINT)})"))
        for e in mine:
            out.append(_confirm(spec, fid, subject, e, printed or "", mine, field, row, checks))
    if not any(r.failed() for r in out):
        errata = sum(r.erratum for r in out)
        out.append(Result(spec.path, None, "words", PROVED, 0.0, spec.path, subject="titles, captions, cells",
                          message=f"{texts} texts read as their tables say ({', '.join(sorted(WORD_CHECKS))})"
                                  + (f"; {errata} printed as the errata say" if errata else "")))
    return out


_HINT = "if the document prints it so, keep it and add an erratum"


def _confirm(spec, fid, subject, e, printed, mine, field, row, checks) -> Result:
    as_printed = _apply(printed, [x for x in mine if x is not e], field, row)
    if e.printed and as_printed.count(e.printed) != 1:
        return Result(spec.path, fid, "erratum", REFUTED, 0.0, str(e.span), subject=None if fid else subject,
                      message=f"erratum's printed text {e.printed!r} does not occur once in the {field} it corrects")
    found = {name: why for name, fn in checks.items() if (why := fn(as_printed)) is not None}
    declared = set(e.breaks) & set(checks)
    if set(found) != set(e.breaks):
        extra, missing = sorted(set(found) - set(e.breaks)), sorted(set(e.breaks) - set(found))
        # each undeclared break with what it finds, as a refutation says it
        also = "; ".join(f"{n}: {subject} {found[n]}" for n in extra)
        what = "; ".join(filter(None, [f"the printed text also breaks {also}" if extra else "",
                                       f"the printed text does not break {', '.join(missing)}" if missing else ""]))
        return Result(spec.path, fid, "erratum", REFUTED, 0.0, str(e.span),
                      {"declared": sorted(e.breaks), "text": as_printed[:300]},
                      subject=None if fid else subject, message=f"erratum not confirmed as declared: {what}")
    reading = _apply(printed, mine, field, row)
    for n in sorted(declared):
        # the whole text keeps its kinds of claim, and the corrected part says what its printed part did
        lost = (_claims(n, as_printed) - _claims(n, reading)) | (_claims(n, e.printed) - _claims(n, e.value.text))
        if lost:
            return Result(spec.path, fid, "erratum", REFUTED, 0.0, str(e.span),
                          {"declared": sorted(e.breaks), "text": reading[:300]}, subject=None if fid else subject,
                          message=f"erratum's value says nothing where the printed text claims {', '.join(sorted(lost))} "
                                  f"({n}): {subject} reads {_quote(reading)}; a correction says it rightly, so the "
                                  f"check can hold the reading to the table")
    if set(e.breaks) == {"wording"} and e.value.text != mended(e.printed):
        # a slip of typography has one reading, its text mended: a value that said anything else (the
        # caption's "matrix matrix" read as ".btype") passed, wording having nothing to hold it to
        return Result(spec.path, fid, "erratum", REFUTED, 0.0, str(e.span),
                      {"declared": sorted(e.breaks), "text": reading[:300]}, subject=None if fid else subject,
                      message=f"an erratum of wording reads its printed text mended, {mended(e.printed)!r}, "
                              f"not {e.value.text!r}")
    name = sorted(declared)[0]
    r = Result(spec.path, fid, name, REFUTED, 0.0, str(e.span), {"printed": e.printed, "value": e.value.text,
                                                                 "kind": e.kind, "message": found[name]},
               erratum=True, subject=None if fid else subject,
               message=f"as printed ({e.kind}): {subject} {'; '.join(found.values())}: {_quote(as_printed)}")
    return r.but(detail={"erratum": {"printed": e.printed, "value": e.value.text, "why": e.erratum,
                                     "at": str(e.span), "kind": e.kind}})


def _claims(check: str, text: str) -> set:
    """What a text claims that `check` reads. A value that drops the claim the printed text got
    wrong ("each containing one `.tf32` element" made "each containing one element") would pass the
    check with nothing to check, so an erratum's reading must keep every kind of claim its printed
    text made."""
    if check == "register-words":
        return {what for what, pattern in (("the elements of each register", EACH), ("the elements in all", TOTAL),
                                           ("the registers' kind", KIND), ("the vectors of a register", VECTORS))
                if pattern.search(text)}
    if check == "types-named":  # "with integer type" claims types as ".u8 / .s8" does
        return {"types"} if named_types(text) or re.search(r"\b(integer|floating point)\b", text) else set()
    return set()


_OF_A_FRAGMENT = ("caption", "fragment", "elements", "difference", "miscellaneous", "elements_note")


def _subject(owner, field, row) -> str:
    if field == "title":
        return f"the title of {owner.section}"
    if field == "stated":
        return f"stated sentence {row + 1} of {owner.section}"
    if field == "same_as":
        return "the \"same as\" sentence"
    what = {"caption": "the caption", "fragment": "the Fragment cell", "elements": "the Elements cell",
            "difference": "another version's Fragment cell", "miscellaneous": "the Miscellaneous Information cell",
            "elements_note": "the Elements cell"}[field]
    return f"{what} of {owner.table_id}" + (f" (table row {row + 1})" if row is not None else "")


def _quote(text: str) -> str:
    return f"“{text[:160]}{'…' if len(text) > 160 else ''}”" if text else "(empty)"


__all__ = ["WORD_CHECKS", "cell_element_types", "cell_types", "check", "named_types", "register_count", "register_kind", "register_words", "same_as_types", "types_named",
           "wording"]


FAMILY = TheoremFamily("words", 20, "The document's words (titles, captions, cells, sentences) agree with its tables",
                        ("mma", "wgmma", "wgmma.sp"), lambda a: check(a.spec, a.resolve), after_fragments=True,
                        readings_only=False)
