"""The verbatim fields of a spec: what it says it copied from the document, each with where it
stands in the spec file (every character) and where in the document it should be found.

Read from the YAML as written, not the typed model: a field is checked as the file holds it,
before any erratum is applied, and once however many instances a parametric shape makes. Which
fields are verbatim is docs/specs.md's list ("Which fields are verbatim"); everything else (ids,
notes, errata's reasons and values, readings of figures, PTX forms, compositions) is the spec's
own words and is not looked for.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from checker.source import SourceText, from_node
from checker.spec import yamlload

# how a field is found (checker/verbatim/match.py)
TITLE = "title"  # a numbered heading of its section
CELL = "cell"  # a whole table cell
HEAD = "head"  # the first cell of the table that holds its row (a type column's header)
NEXT = "next"  # the cell right after its row's Fragment cell (an Elements cell)
LATER = "later"  # a cell after its row's Fragment cell, in the same row (Miscellaneous)
EMPTY = "empty"  # no cell, or an empty one, after its row's Fragment cell (`elements: null`)
# a row that prints no Elements cell of its own (fewer cells than its table's header, the cells
# after its Fragment cell its own later ones), and the merged cell, the nearest row above's that
# prints every cell (`spanned_by`)
SPANNED = "spanned"
SPANNED_WHY = "no text of the section prints its row without an Elements cell of its own, under a row whose own cell this is"
PROSE = "prose"  # a sentence, a caption: running text
PART = "part"  # an erratum's printed text: a part of a cell, a sentence or a formula
FORMULA = "formula"  # a whole code block (or a run of lines where the text has no code blocks),
#                      after the table that holds its first row


@dataclass(frozen=True)
class Field:
    label: str  # "A.b1 caption", as messages name it
    kind: str
    source: SourceText  # the spec's text, with the file position of every character
    section: str  # the section it should be found in
    versions: tuple  # the versions the section claims; () claims none
    seed: str | None  # the file the section was transcribed from, under the document folder
    row: str | None = None  # NEXT, LATER, EMPTY, HEAD, FORMULA: the Fragment cell of its (first) row
    only: str | None = None  # a version's own text (a declared difference): sought there only
    other_rows: tuple = ()  # HEAD, FORMULA: the first row's Fragment cell as another version prints it
    anywhere: bool = False  # a stated sentence: quoted from whichever section the reading rests on
    figure: str | None = None  # a caption: its figure's number, whose caption in the document it is, whole
    figures: tuple = ()  # FORMULA: the fragment's figures ("Figure 46"): the block is the one under them
    later: tuple = ()  # SPANNED: the row's own cells after its Fragment cell (its Miscellaneous cell)

    @property
    def text(self) -> str:
        return self.source.text


def read(path: str, loaded: yamlload.Document | None = None) -> list:
    """Every verbatim field of the spec file at `path` (already through the gate; `loaded`: the
    file as yamlload read it, where the caller has it)."""
    doc = loaded or yamlload.load(path)
    out: list = []
    value = doc.value if isinstance(doc.value, dict) else {}
    for s, sec in enumerate(value.get("sections") or []):
        _section(doc, ("sections", s), sec, out)
    containers = value.get("containers") or {}
    docs = containers.get("document") or []
    for d, entry in enumerate(docs):
        where = ("containers", "document", d)
        ctx = (str(entry.get("section")), tuple(entry.get("versions") or ()), entry.get("seed"))
        _add(doc, out, f"containers {ctx[0]} title", TITLE, where + ("title",), ctx)
        for k, _ in enumerate(entry.get("stated") or []):
            _add(doc, out, f"containers {ctx[0]} stated", PROSE, where + ("stated", k), ctx)
    for r, entry in enumerate(containers.get("reads") or []):
        for d, sec in enumerate(docs):  # the words of one of the sentences above: sought in their sections
            ctx = (str(sec.get("section")), tuple(sec.get("versions") or ()), sec.get("seed"))
            if entry.get("words") and any(entry["words"] in s for s in sec.get("stated") or []):
                _add(doc, out, f"containers {entry.get('type')} words", PART, ("containers", "reads", r, "words"), ctx)
                break
    return out


def _section(doc, where: tuple, sec: dict, out: list) -> None:
    ctx = (str(sec.get("section")), tuple(sec.get("versions") or ()), sec.get("seed"))
    _add(doc, out, "title", TITLE, where + ("title",), ctx)
    for e, _ in enumerate(sec.get("errata") or []):
        _add(doc, out, "title erratum printed", PART, where + ("errata", e, "printed"), ctx)
    for c, _ in enumerate(sec.get("computations") or []):
        _add(doc, out, f"computation {c + 1}", CELL, where + ("computations", c, "printed"), ctx)
    for k, same in enumerate(sec.get("same_as") or []):
        _add(doc, out, "same_as", PROSE, where + ("same_as", k, "printed"), ctx)
        for e, _ in enumerate(same.get("errata") or []):
            _add(doc, out, "same_as erratum printed", PART, where + ("same_as", k, "errata", e, "printed"), ctx)
    for k, _ in enumerate(sec.get("stated") or []):
        _add(doc, out, "stated", PROSE, where + ("stated", k), ctx)
    other = {}  # (fragment, row) -> its Fragment cell in another version (a declared difference)
    for diff in sec.get("differences") or []:
        other.setdefault((diff.get("fragment"), diff.get("row")), []).append(diff.get("fragment_cell"))
    for key in ("fragments", "figures_only"):
        for f, frag in enumerate(sec.get(key) or []):
            _fragment(doc, where + (key, f), frag, ctx, out, tuple(other.get((frag.get("id"), 1), ())))
    for f, lay in enumerate(sec.get("layouts") or []):
        name = str(lay.get("id"))
        _caption(doc, where + ("layouts", f), lay, name, ctx, out)
        _add(doc, out, f"{name} operand_text", PROSE, where + ("layouts", f, "operand_text"), ctx)
    for f, sf in enumerate(sec.get("scale_factors") or []):  # mma with block scaling
        name, at = str(sf.get("id")), where + ("scale_factors", f)
        _caption(doc, at, sf, name, ctx, out)
        _add(doc, out, f"{name} operand_text", PROSE, at + ("operand_text",), ctx)
        for k, _ in enumerate((sf.get("selector") or {}).get("printed") or []):
            _add(doc, out, f"{name} lanes printed", PART, at + ("selector", "printed", k), ctx)
    for d, diff in enumerate(sec.get("differences") or []):
        name = f"{diff.get('fragment')} row {diff.get('row')} in {diff.get('version')}"
        at = where + ("differences", d)
        _add(doc, out, f"{name} fragment_cell", CELL, at + ("fragment_cell",), ctx, only=diff.get("version"))
        kind = NEXT if diff.get("elements_cell") else EMPTY
        _add(doc, out, f"{name} elements_cell", kind, at + ("elements_cell",), ctx,
             row=diff.get("fragment_cell"), only=diff.get("version"))


def _fragment(doc, where: tuple, frag: dict, ctx: tuple, out: list, other: tuple = ()) -> None:
    name = str(frag.get("id"))
    rows = [r.get("fragment") for r in frag.get("table") or [] if isinstance(r, dict)]
    first = rows[0] if rows and isinstance(rows[0], str) else None
    _add(doc, out, f"{name} header", HEAD if first else CELL, where + ("header",), ctx, row=first, other=other)
    for r, row in enumerate(frag.get("table") or []):
        at = where + ("table", r)
        cell = row.get("fragment")
        label = f"{name} row {r + 1}"
        _add(doc, out, f"{label} fragment", CELL, at + ("fragment",), ctx)
        if row.get("elements") is not None:
            _add(doc, out, f"{label} elements", NEXT, at + ("elements",), ctx, row=cell)
        elif row.get("elements_note") is None:
            _add(doc, out, f"{label} elements (empty)", EMPTY, at + ("elements",), ctx, row=cell)
        if row.get("elements_note") is not None:
            _add(doc, out, f"{label} elements_note", NEXT, at + ("elements_note",), ctx, row=cell)
        if row.get("miscellaneous") is not None:
            _add(doc, out, f"{label} miscellaneous", LATER, at + ("miscellaneous",), ctx, row=cell)
        if row.get("spanned_by") is not None:
            later = tuple(row[k] for k in ("miscellaneous",) if isinstance(row.get(k), str))
            _add(doc, out, f"{label} spanned_by", SPANNED, at + ("spanned_by",), ctx, row=cell, later=later)
        for e, err in enumerate(row.get("errata") or []):
            if err.get("printed"):  # "" is the empty cell, checked above
                _add(doc, out, f"{label} erratum printed", PART, at + ("errata", e, "printed"), ctx)
    _caption(doc, where, frag, name, ctx, out)
    if frag.get("formula") is not None and frag.get("reading") is None:
        figures = tuple(str(x) for x in frag.get("figures") or () if isinstance(x, str))
        _add(doc, out, f"{name} formula", FORMULA, where + ("formula",), ctx, row=first, other=other, figures=figures)
    for e, err in enumerate(frag.get("errata") or []):
        if err.get("printed"):
            _add(doc, out, f"{name} erratum printed", PART, where + ("errata", e, "printed"), ctx)
    sparsity = frag.get("sparsity")
    if isinstance(sparsity, dict) and sparsity.get("printed"):
        # the storage section's sentence: sought there, in the versions the fragment's section claims
        storage = (str(sparsity.get("storage")), ctx[1], None)
        _add(doc, out, f"{name} sparsity", PROSE, where + ("sparsity", "printed"), storage)
        _add(doc, out, f"{name} sparsity granularity", PART, where + ("sparsity", "granularity"), storage)


def _caption(doc, where: tuple, frag: dict, name: str, ctx: tuple, out: list) -> None:
    """`Figure N caption`, one per figure: a fragment drawn in several figures carries their
    captions joined by " / " (split where the next caption starts as the first does)."""
    figures, caption = frag.get("figures") or [], frag.get("caption")
    if caption is None or not figures:
        return
    text = from_node(doc.nodes[where + ("caption",)], doc.text, doc.path)
    first = re.match(r"\S+", text.text)
    cuts = [m.start() for m in re.finditer(r" / (?=" + re.escape(first.group()) + r" )", text.text)] if first else []
    bounds = [0] + [c + 3 for c in cuts] + [len(text.text)]
    parts = [(bounds[k], (cuts[k] if k < len(cuts) else len(text.text))) for k in range(len(bounds) - 1)]
    if len(parts) != len(figures):
        parts = [(0, len(text.text))]  # the whole caption is then sought with the first figure
    for k, (a, b) in enumerate(parts):
        fig = from_node(doc.nodes[where + ("figures", k)], doc.text, doc.path)
        joined = fig.text + " " + text.text[a:b]
        origins = fig.origins[:len(fig.text)] + (fig.origins[len(fig.text)],) + text.origins[a:b + 1]
        number = re.fullmatch(r"Figure (\d+)", fig.text)
        out.append(Field(f"{name} caption", PROSE, SourceText(joined, doc.path, origins), *ctx,
                         figure=number.group(1) if number else fig.text))


def _add(doc, out: list, label: str, kind: str, path: tuple, ctx: tuple, row=None, only=None, other=(),
         figures=(), later=()) -> None:
    anywhere = path[-2] == "stated"
    node = doc.nodes.get(path)
    if kind == EMPTY:  # nothing to find but the empty cell: pointed at by its key, or its row
        span = doc.span(path)
        source = SourceText("", doc.path, ((span.line, span.col),))
    elif node is None or not isinstance(node.value, str) or not node.tag.endswith(":str"):
        return
    else:
        source = from_node(node, doc.text, doc.path)
    out.append(Field(label, kind, source, *ctx, row=row, only=only, other_rows=other, anywhere=anywhere,
                     figures=figures, later=later))
