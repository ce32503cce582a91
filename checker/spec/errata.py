"""An erratum of a spec read: which field it may correct where it stands, what its breaks allow, and
which kind it is."""
from __future__ import annotations

from checker.errors import SpecError
from checker.spec import model

# where an erratum stands -> the fields it may correct there
FIELDS = {"row": ("elements", "fragment", "miscellaneous", "elements_note"), "fragment": ("formula", "header", "caption"),
          "section": ("title", "stated"), "same_as": ("same_as",)}


def erratum(meaning, e: dict, epath: list, default_field: str, row=None, where=None, empty=False) -> model.Erratum:
    """An erratum as the spec gives it, each field held to what it corrects and what it breaks."""
    fld = e.get("field", default_field)
    allowed = FIELDS[where or ("row" if row is not None else "fragment")]
    if fld not in allowed:
        raise SpecError(meaning.span(epath + ["field"]), f"an erratum here corrects {' or '.join(allowed)}, not {fld}")
    if (e["printed"] == "") != (empty and fld == "elements"):
        raise SpecError(meaning.span(epath + ["printed"]),
                        "printed: \"\" stands for an Elements cell the document leaves empty (elements: null)"
                        if e["printed"] == "" else "this Elements cell is empty: its erratum has printed: \"\"")
    if fld in ("header", "formula") and set(e["breaks"]) <= model.WORD_CHECKS:  # else nothing would confirm it
        raise SpecError(meaning.span(epath + ["breaks"]), f"no words' theorem ({', '.join(sorted(model.WORD_CHECKS))}) "
                        f"reads a {fld}: its erratum breaks what the printed {fld} fails (a property, or syntax)")
    kind, breaks = e.get("kind", "contradiction"), set(e["breaks"])
    # what the printed text fails says which it is: an empty cell or a doubled word contradicts
    # nothing, and a layout a property refutes contradicts the document's own claim of one
    want = "judgment" if breaks <= {"elements-listed", "wording"} else "contradiction" if breaks & model.LAYOUT_CHECKS else kind
    if kind != want:
        raise SpecError(meaning.span(epath + ["kind"] if "kind" in e else epath), f"an erratum that breaks "
                        f"{', '.join(sorted(breaks))} is kind: {want}, not {kind}" + ("" if "kind" in e else " (the default)"))
    return model.Erratum(fld, e["printed"], meaning.stext(epath + ["value"]), tuple(e["breaks"]),
                         e["erratum"], meaning.span(epath), row, kind)


def merged(meaning, r: dict, rpath: list):
    """The merged Elements cell of a row above that spans this row (`spanned_by`), or None. The
    row prints no cell of its own, so it has neither a list, nor a note, nor an empty cell for an
    erratum to fill: the spanning row's list is its list."""
    if r.get("spanned_by") is None:
        return None
    own = next((key for key in ("elements", "elements_note") if r.get(key) is not None), None)
    if own is not None:
        raise SpecError(meaning.span(rpath + ["spanned_by"], key=True), f"this row prints its own Elements cell "
                        f"({own}): no merged cell of a row above spans it", "elements: null, where it prints none")
    empty = next((k for k, e in enumerate(r.get("errata", [])) if e.get("printed") == ""), None)
    if empty is not None:
        raise SpecError(meaning.span(rpath + ["errata", empty, "printed"]), "this row's Elements cell is the merged "
                        "cell of a row above (spanned_by): no empty cell for an erratum to fill")
    return meaning.stext(rpath + ["spanned_by"])
