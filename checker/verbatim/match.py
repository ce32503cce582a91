"""Finding a spec's field in the document, in the section the spec names (the headings of that
number, in every file and version that holds it), as its kind says (checker/verbatim/fields.py:
a whole cell, the cell after its row's Fragment cell, a code block after its table, ...); where
it is not there, the document's text nearest to it, with a short character diff.

A field counts as found when it is so in some version its section claims (a file whose version
is not known counts as any). Found only in another section it is not found, but for a `stated`
sentence (quoted from wherever the reading rests) and where the document holds no text of the
section at all (a partial copy): then it is found, and a note says where.
"""
from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass

from checker.bounded import shown
from checker.errors import SourceSpan
from checker.verbatim import fields as F
from checker.verbatim import normalise as nm
from checker.verbatim import whole as W

FOUND, OUTSIDE, MISSING, VERSION, SKIPPED = "found", "outside", "missing", "version", "skipped"
_CONTEXT = 24  # characters of unchanged text either side of a change in a diff
_CHANGES = 3  # changes a diff shows


@dataclass(frozen=True)
class Where:
    file: object  # checker.verbatim.document.DocFile
    offset: int

    @property
    def span(self) -> SourceSpan:
        return self.file.span(self.offset)

    @property
    def version(self):
        return self.file.version


@dataclass(frozen=True)
class Outcome:
    field: F.Field
    status: str
    found: tuple  # Where: in its section (FOUND, VERSION), in the document (OUTSIDE, MISSING: elsewhere)
    at: SourceSpan  # where in the spec: the first character that differs, or the field
    nearest: tuple | None = None  # (text, Where)
    diff: str | None = None
    why: str = ""

    @property
    def failed(self) -> bool:
        return self.status in (MISSING, VERSION)

    def versions(self) -> tuple:
        return tuple(sorted({w.version for w in self.found if w.version}))


def normalised(field: F.Field) -> tuple:
    """(text, origins) of a field as the document is read: a formula by lines, the rest as prose."""
    if field.kind == F.FORMULA:
        lines, origins = nm.formula_lines(field.text)
        flat = []
        for k, o in enumerate(origins):
            flat.extend(o + ([o[-1] + 1] if k < len(origins) - 1 else []))
        return "\n".join(lines), flat
    return nm.prose(field.text)


def check(field: F.Field, doc) -> Outcome:
    text, origins = normalised(field)
    files = [f for f in doc.files if field.only is None or f.version == field.only]
    if field.only is not None and not files:
        return Outcome(field, SKIPPED, (), field.source.span(0), why=f"the document holds no {field.only} text")
    scope = [(f, f.regions(field.section) or _seed(f, field)) for f in files]
    scope = [(f, regs) for f, regs in scope if regs]
    hits = _find(field, text, scope)
    if hits:
        return _claimed(field, FOUND, hits, "")
    if field.row is not None:  # tied to its table or row: is the text in the section at all?
        loose = [] if field.kind == F.EMPTY else _find(field, text, scope, loose=True)
        if not _row_found(field, scope):  # the row's Fragment cell is not there: its own error says so
            if field.kind == F.EMPTY:
                return Outcome(field, SKIPPED, (), field.source.span(0),
                               why="its row's Fragment cell is not in the document")
            if loose:
                return _claimed(field, FOUND, loose, "")
        elif loose:
            own = ("under its own table and figure" if field.kind == F.FORMULA and field.figures else
                   "under its own table" if field.kind in (F.HEAD, F.FORMULA) else "in its own row")
            near = None if field.kind == F.FORMULA else _nearest(field, text, scope)
            return _missing(field, origins, text, near, f"in section {field.section}, but not {own} (of the "
                            f"Fragment cell {shown(field.row, 50)}): found elsewhere in it", loose)
    everywhere = [(f, [(0, len(f.text))]) for f in files]
    # a title is its section's; a cell tied to a row of the section is that row's: not sought elsewhere
    tied = field.kind == F.TITLE or (field.row is not None and _row_found(field, scope))
    elsewhere = _find(field, text, everywhere, loose=True) if not (tied and scope) else []
    if elsewhere:
        sections = ", ".join(sorted({w.file.section_at(w.offset) or "none" for w in elsewhere}))
        if field.anywhere or not scope:
            why = (f"section {field.section} is not in the document" if not scope else
                   f"not in section {field.section}") + f"; found in section {sections}"
            return _claimed(field, OUTSIDE, elsewhere, why)
        return Outcome(field, MISSING, tuple(elsewhere), field.source.span(0),
                       why=f"not in section {field.section} of the document; found in section {sections}")
    if field.kind == F.PROSE and field.figure is None:  # a sentence the document goes on from
        cut = W.cut_short(text, everywhere if field.anywhere or not scope else scope)
        if cut:
            return _missing(field, origins, text, (cut[0], Where(cut[1], cut[2])), W.why(field, text, cut[0]))
    scope = scope or everywhere
    near = _nearest(field, text, scope)
    if near is None:
        return Outcome(field, MISSING, (), field.source.span(0), why="not in the document; nothing near it")
    why = {F.EMPTY: "the document's cell in its row is not empty", F.SPANNED: F.SPANNED_WHY}.get(field.kind,
                                                                                                 "not in the document")
    if field.kind == F.PROSE:
        why = W.why(field, text, near[0]) or why
    return _missing(field, origins, text, near, why)


def _missing(field: F.Field, origins: list, text: str, near, why: str, found=()) -> Outcome:
    """Not found: pointed at the first character that differs from the nearest text, if any."""
    if near is None:
        return Outcome(field, MISSING, tuple(found), field.source.span(0), why=why)
    diff, first = render_diff(text, near[0])
    at = field.source.span(origins[first] if first < len(origins) else len(field.text))
    return Outcome(field, MISSING, tuple(found), at, near, diff, why)


def _claimed(field: F.Field, status: str, hits: list, why: str) -> Outcome:
    """Found: in a version its section claims (a file of no known version counts as any)?"""
    claimed = field.versions
    if not claimed or any(w.version is None or w.version in claimed for w in hits):
        return Outcome(field, status, tuple(hits), field.source.span(0), why=why)
    return Outcome(field, VERSION, tuple(hits), field.source.span(0),
                   why=f"found only in {', '.join(sorted({w.version for w in hits}))}, "
                       f"not in a version its section claims ({', '.join(claimed)})")


def _seed(f, field) -> list:
    """The file the section was transcribed from, whole, where it has no numbered heading at all
    (one that numbers other sections but not this one holds them, not this)."""
    seed = (field.seed or "").replace("\\", "/")
    rel = f.rel.replace("\\", "/")
    mine = seed and not f.headings and (seed == rel or seed.endswith("/" + rel))
    return [(0, len(f.text))] if mine else []


def _inside(off: int, regions) -> bool:
    return any(a <= off < b for a, b in regions)


def _find(field: F.Field, text: str, scope, loose: bool = False) -> list:
    """Where the field is in the regions; `loose`: a cell anywhere in them, a formula after any
    table (not after its own row, or under its own table)."""
    kind, out = field.kind, []
    if loose:
        kind = F.CELL if kind in (F.NEXT, F.LATER, F.HEAD) else kind
    row = _row_texts(field)
    for f, regs in scope:
        if kind == F.TITLE:
            out += [Where(f, at) for num, title, at in f.headings if num == field.section and title == text]
        elif kind == F.HEAD:
            for cell, _ in _rows(f, regs, row):
                first = _first(f, cell.table)
                if first.text == text and first.origins:
                    out.append(Where(f, first.origins[0]))
        elif kind == F.CELL:
            out += [Where(f, c.origins[0]) for c in f.cells if c.text == text and c.origins and _inside(c.origins[0], regs)]
        elif kind in (F.NEXT, F.LATER, F.EMPTY):
            for cell, after in _rows(f, regs, row):
                if kind == F.NEXT and after and after[0].text == text:
                    out.append(Where(f, after[0].origins[0]))
                elif kind == F.LATER and any(c.text == text for c in after):
                    out.append(Where(f, next(c for c in after if c.text == text).origins[0]))
                elif kind == F.EMPTY and (not after or after[0].text == ""):
                    out.append(Where(f, cell.origins[-1]))
        elif kind == F.SPANNED:
            later = {nm.prose(t)[0] for t in field.later}
            for cell, after in _rows(f, regs, row):
                above = f.merged_cell(cell, after, later)
                if above is not None and above.text == text:
                    out.append(Where(f, above.origins[0]))
        elif kind == F.FORMULA:
            out += [Where(f, at) for at in _lines(f, text.split("\n"), regs)
                    if loose or field.row is None or (_after_table(f, at, row) and _under_figure(f, at, field.figures))]
        elif field.figure is not None:  # a caption: its figure's in the document, whole
            out += [Where(f, o[0]) for _, cap, o in f.captions if cap == text and o and _inside(o[0], regs)]
        else:
            whole = kind == F.PROSE  # a sentence ends where the document's does
            out += [Where(f, at) for at in _substring(f.prose, f.prose_origins, text, regs, whole)]
            if kind == F.PART:
                code = "\n".join(nm.formula_lines(field.text)[0])
                out += [Where(f, at) for at in _substring(f.joined, f.joined_origins, code, regs)]
    return out


def _first(f, table: int):
    """The first cell of a table: its type column's header."""
    return next(c for c in f.cells if c.table == table)


def _row_texts(field: F.Field) -> frozenset:
    """The Fragment cell a field is tied to, normalised: as the spec holds it, and as another
    version prints it where the section declares that difference."""
    return frozenset(nm.prose(r)[0] for r in ((field.row,) if field.row else ()) + field.other_rows if r)


def _after_table(f, at: int, rows: frozenset) -> bool:
    """Whether the last table before offset `at` holds one of the Fragment cells `rows`."""
    before = [c.table for c in f.cells if c.origins and c.origins[0] < at]
    return bool(before) and any(c.table == before[-1] and c.text in rows for c in f.cells)


def _under_figure(f, at: int, figures: tuple) -> bool:
    """Whether the last figure caption between the last table before offset `at` and `at` is one
    of the fragment's `figures` (or there is none: a text that prints the block before its
    figure, or no caption at all). One table can serve two fragments (m8n8k4's A for .row and
    .col), each with its figure and its block: a block under the other's figure is the other's."""
    if not figures:
        return True
    tables = [c.origins[0] for c in f.cells if c.origins and c.origins[0] < at]
    since = tables[-1] if tables else -1
    under = [num for num, _, o in f.captions if o and since < o[0] < at]
    return not under or any(under[-1] == fig.split()[-1] or fig == f"Figure {under[-1]}" for fig in figures)


def _row_found(field: F.Field, scope) -> bool:
    rows = _row_texts(field)
    return any(True for f, regs in scope for _ in _rows(f, regs, rows))


def _rows(f, regs, rows: frozenset):
    """(the cell, the cells after it in its row) for each cell of the regions that reads one of `rows`."""
    cells = f.cells
    for k, c in enumerate(cells):
        if c.text in rows and c.origins and _inside(c.origins[0], regs):
            after = []
            for d in cells[k + 1:]:
                if d.row != c.row:
                    break
                after.append(d)
            yield c, after


def _substring(hay: str, origins: list, needle: str, regs, whole: bool = False) -> list:
    """Offsets in the file where `needle` stands in `hay`, not starting or ending inside a word;
    `whole`: ending where a sentence of the document does (whole.py), not at any word's end."""
    out, start = [], 0
    if not needle:
        return out
    while True:
        k = hay.find(needle, start)
        if k < 0:
            return out
        start = k + 1
        end = k + len(needle)
        if needle[0].isalnum() and k > 0 and hay[k - 1].isalnum():
            continue
        if needle[-1].isalnum() and end < len(hay) and hay[end].isalnum():
            continue
        if whole and not (W.starts_sentence(hay, k) and W.ends_sentence(hay, end)):
            continue
        if _inside(origins[k], regs):
            out.append(origins[k])


def _lines(f, want: list, regs) -> list:
    """Where the lines `want` are a whole code block, or a run of lines outside every code block."""
    out, n, lines = [], len(want), f.lines
    for k in range(len(lines) - n + 1):
        if lines[k].text != want[0] or [ln.text for ln in lines[k:k + n]] != want:
            continue
        block = lines[k].block
        if any(ln.block != block for ln in lines[k:k + n]):
            continue
        if block is not None and ((k > 0 and lines[k - 1].block == block)
                                  or (k + n < len(lines) and lines[k + n].block == block)):
            continue  # a part of a code block is not the block
        at = lines[k].origins[0] if lines[k].origins else 0
        if _inside(at, regs):
            out.append(at)
    return out


def _nearest(field: F.Field, text: str, scope):
    """(the document's text nearest to the field, Where), or None."""
    kind = field.kind
    if kind == F.TITLE:
        heads = [(title, Where(f, at)) for f, _ in scope for num, title, at in f.headings if num == field.section]
        heads = heads or [(title, Where(f, at)) for f, _ in scope for num, title, at in f.headings]
        return _best(text, heads)
    if kind == F.HEAD:  # the header of the table its row is in
        heads = [(first.text, Where(f, first.origins[0])) for f, regs in scope
                 for cell, _ in _rows(f, regs, _row_texts(field)) for first in [_first(f, cell.table)] if first.origins]
        if heads:
            return _best(text, heads)
        kind = F.CELL
    if kind in (F.CELL, F.NEXT, F.LATER, F.EMPTY, F.SPANNED):
        cands = []
        if kind not in (F.CELL, F.SPANNED):  # a merged cell: the section's cell most like it
            row = _row_texts(field)
            for f, regs in scope:
                for cell, after in _rows(f, regs, row):
                    pick = after if kind == F.LATER else after[:1]
                    cands += [(c.text, Where(f, c.origins[0] if c.origins else cell.origins[-1])) for c in pick]
            if kind == F.EMPTY:
                return next(((t, w) for t, w in cands if t), None)
        if not cands:
            cands = [(c.text, Where(f, c.origins[0])) for f, regs in scope for c in f.cells
                     if c.origins and _inside(c.origins[0], regs)]
        return _best(text, cands)
    if field.figure is not None:  # its figure's caption; else the section's most like it
        caps = [(cap, Where(f, o[0])) for f, regs in scope for _, cap, o in f.captions if o and _inside(o[0], regs)]
        if caps:
            return _best(text, [c for c in caps if W.own_caption(field, c[0])] or caps)
    pick = [(f, f.joined, f.joined_origins, regs) for f, regs in scope] if kind == F.FORMULA else \
        [(f, f.prose, f.prose_origins, regs) for f, regs in scope]
    return _window(text, pick)


def _best(text: str, cands: list):
    """The candidate most like `text`: quick bounds first, the full ratio for the few left."""
    if not cands:
        return None
    scored = sorted(cands, key=lambda c: -difflib.SequenceMatcher(None, text, c[0], autojunk=False).quick_ratio())
    return max(scored[:20], key=lambda c: difflib.SequenceMatcher(None, text, c[0], autojunk=False).ratio())


def _window(text: str, pick: list):
    """The stretch of running text most like `text`: windows of as many words, where the field's
    words vote for where it would start (each word found votes for its own offset), the few
    with most votes compared in full."""
    words = text.split()
    if not words:
        return None
    at: dict = {}
    for k, w in enumerate(words):
        at.setdefault(w, []).append(k)
    cands = []
    for f, hay, origins, regs in pick:
        spans = [(m.start(), m.end()) for m in re.finditer(r"[^\s\x1e\x1f]+", hay) if _inside(origins[m.start()], regs)]
        votes: Counter = Counter()
        for j, (a, b) in enumerate(spans):
            for k in at.get(hay[a:b], ()):
                votes[j - k] += 1
        cands += [(v, f, hay, origins, spans, s) for s, v in votes.most_common(4)]
    best, seen = None, {}
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(text)  # its index is built once, for every window

    def score(spans, hay, a, b):
        window = hay[spans[a][0]:spans[b - 1][1]]
        if window not in seen:  # the copies of a section repeat its windows
            matcher.set_seq1(window)
            seen[window] = matcher.ratio() if best is None or matcher.quick_ratio() > best[0] else 0.0
        return seen[window], window

    for v, f, hay, origins, spans, s in sorted(cands, key=lambda c: -c[0])[:8]:
        # the start the votes give, then a word either way and a word more or less at the end
        tries = [(s, len(words))] + [(s + ds, len(words) + dn) for ds in (-1, 0, 1) for dn in (-1, 0, 1) if ds or dn]
        for start, length in tries:
            a, b = max(0, start), min(len(spans), start + length)
            if a >= b:
                continue
            r, window = score(spans, hay, a, b)
            if best is None or r > best[0]:
                best = (r, window, Where(f, origins[spans[a][0]]))
            if r == 1.0 or (start, length) == tries[0] and best[0] > r:
                break  # exact, or a start the votes gave that is already worse than the best
    return None if best is None else (best[1], best[2])


def render_diff(spec: str, document: str) -> tuple:
    """(a short diff: `[-spec-]{+document+}` for each of the first changes, with a little of the
    unchanged text around them; the offset in `spec` of the first change)."""
    ops = difflib.SequenceMatcher(None, spec, document, autojunk=False).get_opcodes()
    changes = [k for k, op in enumerate(ops) if op[0] != "equal"]
    if not changes:
        return "", len(spec)
    first, last, c = changes[0], changes[min(len(changes), _CHANGES) - 1], _CONTEXT
    out = []
    for k in range(max(0, first - 1), min(last + 2, len(ops))):
        tag, i1, i2, j1, j2 = ops[k]
        if tag != "equal":
            out.append((f"[-{spec[i1:i2]}-]" if i2 > i1 else "") + (f"{{+{document[j1:j2]}+}}" if j2 > j1 else ""))
            continue
        seg = spec[i1:i2]
        if first < k < last:
            seg = seg if len(seg) <= 2 * c else seg[:c] + "…" + seg[-c:]
        elif k > first:
            seg = seg[:c] + ("…" if len(seg) > c else "")
        else:
            seg = ("…" if len(seg) > c else "") + seg[-c:]
        out.append(seg)
    more = len(changes) - _CHANGES
    return "".join(out) + (f" (and {more} more changes)" if more > 0 else ""), ops[first][1]
