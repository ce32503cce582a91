"""The document a spec is checked against: a folder of Markdown or text files (the PTX ISA as
the repository's `document/` holds it), read as untrusted input.

Every file is read with checker.bounded's reader (a regular file, never through a link, at most
MAX_FILE bytes); the walk never follows a link either: a link that leads out of the folder is an
error, one that stays inside is passed over (what it names is read where it lies). Only `*.md`
and `*.txt` are read; names starting with a dot are passed over. The number of entries looked
at, the files read, the bytes in all and the depth are bounded. What cannot be read is a
located error (SpecError), every one of them collected, never a traceback.

A file is parsed into what the matcher compares against (checker/verbatim/normalise.py): its
prose (one text with its markup taken off), its table cells (row by row), its lines (code blocks
as written, for formulas) and its numbered headings (a section runs from its heading to the next
heading that is not one of its subsections).
"""
from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field

from checker.bounded import file_kind, read_regular, shown
from checker.errors import SourceSpan, SpecError
from checker.verbatim import normalise as nm

MAX_FILE = 1 << 20  # bytes of one file (the largest of document/: 47 KB)
MAX_TOTAL = 1 << 24  # bytes of all files together (document/: 0.64 MB)
MAX_FILES = 2000  # files read (document/: 95)
MAX_ENTRIES = 20000  # folder entries looked at, whatever they are
MAX_DEPTH = 16
MAX_ERRORS = 50  # errors kept: enough to see what is wrong, never a flood
SUFFIXES = (".md", ".txt")
_VERSION = re.compile(r"\bPTX ISA\b\)?[^\n]{0,60}?\b(?:version )?(\d+\.\d+)\b")
# a figure's caption opens its line: `**Figure 79 MMA ...**` (9.1, a note on its anchor after it),
# `**Figure 146** Sparse ...` or `*Figure 176 Sparse ...*` (9.2) in Markdown; in a
# text file (the seeds) a plain `Figure 100 MMA ...`, where in Markdown that is prose ("Figure 176
# shows ...") and `Figure 111, with` is prose wrapped in either
_CAPTION = re.compile(r"[ \t]*(\*{0,2})Figure (\d+)(?=\*|[ \t]+\S)")


@dataclass
class Cell:
    text: str
    origins: list
    row: int  # cells of one row share it (the plain-text seed prints a row's cells a line each)
    table: int  # cells of one table (its header row first) share it


@dataclass
class Line:
    text: str
    origins: list
    block: int | None  # the code block it is in; None: outside every code block


@dataclass
class DocFile:
    path: str  # as shown: the folder given, joined with the file's path inside it
    rel: str  # inside the folder given (what a spec's `seed:` names)
    version: str | None
    text: str
    prose: str = ""
    prose_origins: list = field(default_factory=list)
    cells: list = field(default_factory=list)
    lines: list = field(default_factory=list)
    headings: list = field(default_factory=list)  # (number, title, offset)
    captions: list = field(default_factory=list)  # (figure number, caption, origins): "Figure 100 MMA ..."
    joined: str = ""  # the lines, one "\n" between each: where a printed part of a formula is sought
    joined_origins: list = field(default_factory=list)
    _starts: list = field(default_factory=list)

    def span(self, offset: int) -> SourceSpan:
        import bisect

        k = bisect.bisect_right(self._starts, offset) - 1
        return SourceSpan(self.path, k + 1, offset - self._starts[k] + 1)

    def prose_lines(self):
        """(line number, offset, text) of each line outside code blocks (the fences left out), in
        order: where a caption or a sentence the checks look for may stand."""
        in_code, at = False, 0
        for k, raw in enumerate(self.text.split("\n")):
            start, at = at, at + len(raw) + 1
            if nm.FENCE.match(raw):
                in_code = not in_code
            elif not in_code:
                yield k + 1, start, raw

    def section_at(self, offset: int) -> str | None:
        """The number of the innermost section that holds `offset`: the last heading before it (the
        headings are in the order of the text; bisected, since a hostile file of a MiB may hold
        thousands of headings and as many captions, each asking)."""
        import bisect

        k = bisect.bisect_right(self.headings, offset, key=lambda h: h[2]) - 1
        return self.headings[k][0] if k >= 0 else None

    def merged_cell(self, cell: Cell, after: list, later: set) -> Cell | None:
        """The merged Elements cell over the row of Fragment cell `cell`, or None. The row must
        print none of its own: fewer cells than its table's header row, and those after `cell` its
        own later ones (`later`: a Miscellaneous cell the span leaves in place). The merged cell is
        the nearest row above's that prints every cell: a row between that lacks one is spanned by
        it too. A text that prints merged cells as empty ones (9.2's conversion) shows no span."""
        rows: dict = {}
        for c in self.cells:
            if c.table == cell.table:
                rows.setdefault(c.row, []).append(c)
        ordered = [rows[r] for r in sorted(rows)]
        header, mine = ordered[0], rows[cell.row]
        k = next(j for j, c in enumerate(mine) if c is cell)
        if mine is header or len(mine) >= len(header) or any(c.text not in later for c in after):
            return None
        above = next((cells for cells in reversed(ordered[1:ordered.index(mine)]) if len(cells) == len(header)), None)
        return above[k + 1] if above is not None and above[k + 1].origins else None

    def regions(self, number: str) -> list:
        """[(start, end)] of the section `number`: from each heading of it to the next heading
        that is neither it nor one of its subsections."""
        out = []
        for k, (num, _, at) in enumerate(self.headings):
            if num != number:
                continue
            end = next((o for n, _, o in self.headings[k + 1:] if n != number and not n.startswith(number + ".")),
                       len(self.text))
            out.append((at, end))
        return out


@dataclass
class Document:
    files: list
    errors: list  # SpecError, located

    def versions(self) -> dict:
        out: dict = {}
        for f in self.files:
            out[f.version] = out.get(f.version, 0) + 1
        return out


def read(folders: list) -> Document:
    """The files of the folders given: [(version or None, folder)]."""
    files, errors, seen = [], [], set()
    budget = {"entries": 0, "bytes": 0}
    for version, folder in folders:
        root = os.path.realpath(folder)
        found: list = []
        _walk(folder, root, "", 0, found, errors, budget, seen)
        readmes = {}
        for rel, text in found:
            if os.path.basename(rel).lower() == "readme.md":
                m = _VERSION.search(text.split("\n", 1)[0]) if text.startswith("#") else None
                readmes[os.path.dirname(rel)] = m.group(1) if m else None
        for rel, text in found:
            files.append(parse(os.path.join(folder, rel), rel, version or _version_of(rel, text, readmes), text))
    if not files and not errors:
        errors.append(SpecError(SourceSpan(folders[0][1], 1, 1) if folders else None,
                                f"no document text (*.md, *.txt) in {' '.join(shown(f, 60, False) for _, f in folders)}"))
    return Document(files, errors[:MAX_ERRORS])


def _version_of(rel: str, text: str, readmes: dict) -> str | None:
    """The version a file says it is: in a comment it opens with, else in the first line (a
    heading) of the nearest README.md above it; None where neither says."""
    if text.startswith("<!--"):
        m = _VERSION.search(text[:text.find("-->") if "-->" in text else 2000][:2000])
        if m:
            return m.group(1)
    folder = os.path.dirname(rel)
    while True:
        if readmes.get(folder):
            return readmes[folder]
        if not folder:
            return None
        folder = os.path.dirname(folder)


def _walk(folder, root, rel, depth, found, errors, budget, seen) -> None:
    where = os.path.join(folder, rel) if rel else folder
    if depth > MAX_DEPTH:
        errors.append(SpecError(SourceSpan(where, 1, 1), f"folders nested deeper than {MAX_DEPTH}"))
        return
    try:
        names = sorted(os.listdir(where))
    except OSError as exc:
        errors.append(SpecError(SourceSpan(where, 1, 1), f"cannot read folder: {exc.strerror or exc}"))
        return
    for name in names:
        if budget.get("full"):  # a bound was reached: said once, nothing more read
            return
        budget["entries"] += 1
        if budget["entries"] > MAX_ENTRIES:
            errors.append(SpecError(SourceSpan(folder, 1, 1), f"more than {MAX_ENTRIES} entries: not read further"))
            budget["full"] = True
            return
        if name.startswith("."):
            continue
        sub = os.path.join(rel, name) if rel else name
        path = os.path.join(folder, sub)
        try:
            st = os.lstat(path)
        except OSError as exc:
            errors.append(SpecError(SourceSpan(path, 1, 1), f"cannot read: {exc.strerror or exc}"))
            continue
        if stat.S_ISLNK(st.st_mode):
            target = os.path.realpath(path)
            if target != root and not target.startswith(root + os.sep):
                errors.append(SpecError(SourceSpan(path, 1, 1), "a link out of the document folder: not followed",
                                        f"it leads to {shown(target, 80, False)}"))
            continue  # a link inside: what it names is read where it lies
        if stat.S_ISDIR(st.st_mode):
            _walk(folder, root, sub, depth + 1, found, errors, budget, seen)
            continue
        if not name.endswith(SUFFIXES):
            continue
        if not stat.S_ISREG(st.st_mode):
            errors.append(SpecError(SourceSpan(path, 1, 1), f"not a regular file: it is {file_kind(st.st_mode)}"))
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen:  # the same file through two folders given
            continue
        seen.add(key)
        if len(seen) > MAX_FILES:
            errors.append(SpecError(SourceSpan(path, 1, 1), f"more than {MAX_FILES} document files: not read"))
            budget["full"] = True
            return
        text = _text(path, budget, errors)
        if text is not None:
            found.append((sub, text))


def _text(path: str, budget: dict, errors: list) -> str | None:
    limit = min(MAX_FILE, MAX_TOTAL - budget["bytes"])
    try:
        data = read_regular(path, limit, follow=False)
    except SpecError as exc:
        if "larger than" in exc.message and limit < MAX_FILE:  # the total is what is reached
            exc = SpecError(exc.span, exc.message, f"the document's files may hold {MAX_TOTAL} bytes in all")
            budget["full"] = True
        errors.append(exc)
        return None
    budget["bytes"] += len(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        errors.append(SpecError(SourceSpan(path, line, col), f"not UTF-8 text: byte 0x{data[exc.start]:02x}"))
        return None
    if "\x00" in text:
        off = text.index("\x00")
        errors.append(SpecError(_span(path, text, off), "a NUL character: binary, not text"))
        return None
    bad = re.search(r"[\x1e\x1f]", text)
    if bad:  # the characters the normaliser marks cells and gaps with
        errors.append(SpecError(_span(path, text, bad.start()), f"control character {bad.group()!r} in text"))
        return None
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _span(path: str, text: str, off: int) -> SourceSpan:
    return SourceSpan(path, text.count("\n", 0, off) + 1, off - (text.rfind("\n", 0, off) + 1) + 1)


def _caption(content: str, base: int, markdown: bool):
    """(figure number, caption, origins) of the caption a line of prose opens, or None. The
    caption is its bold or emphasised span (what follows it, the 9.1 copy's `(figure anchor: ...)`,
    is the converter's), or the line where only the number is marked or nothing is."""
    m = _CAPTION.match(content)
    if not m or (markdown and not m.group(1)):
        return None
    marks, a, b = m.group(1), m.start(1), len(content)
    if marks and not content.startswith(marks, m.end()):
        close = content.rfind(marks)
        if close > m.end():
            a, b = m.end(1), close
    text, origins = nm.collapse(nm.inline(content[a:b], base + a))
    return (m.group(2), text, origins) if text.startswith("Figure ") else None


def parse(path: str, rel: str, version: str | None, text: str) -> DocFile:
    f = DocFile(path, rel, version, text)
    plain = not re.search(r"^#{1,6} ", text, re.M)  # the plain-text seed: no Markdown heading
    markdown = path.endswith(".md")  # where a caption is marked up (the seeds, *.txt, print them plain)
    chars: list = []
    block, row, table, in_code, last_plain, was_table = 0, 0, 0, False, False, False
    at = 0
    for raw in text.split("\n"):
        f._starts.append(at)
        start, at = at, at + len(raw) + 1
        is_table = not in_code and not nm.FENCE.match(raw) and bool(raw.strip()) and (
            nm.is_table_line(raw) or bool(nm.DELIMITER.match(raw)))
        table += is_table and not was_table
        was_table = is_table
        if nm.FENCE.match(raw):
            in_code = not in_code
            block += in_code
            chars.append((nm.GAP, start))
            last_plain = False
            continue
        if in_code:
            if raw.strip():  # a blank line of a formula is layout, as in the spec's (normalise.py)
                f.lines.append(Line(*nm.code_line(raw, start), block))
            continue
        if not raw.strip():
            chars.append((nm.GAP, start))
            last_plain = False
            continue
        numbered = nm.NUMBERED.match(raw)
        if numbered:
            number = numbered.group(1) or numbered.group(2)
            f.headings.append((number, nm.collapse(nm.inline(numbered.group(3)))[0], start))
        elif plain:
            glued = nm.GLUED.search(raw)
            if glued:
                f.headings.append((glued.group(1), nm.collapse(nm.inline(glued.group(2)))[0], start + glued.start(1)))
        heading = nm.HEADING.match(raw)
        cut = heading or nm.BULLET.match(raw)
        skip = cut.end() if cut else 0
        if cut:  # a heading or a list item starts a block of its own, as a blank line does
            chars.append((nm.GAP, start))
        content = raw[skip:]
        f.lines.append(Line(*nm.prose_line(content, start + skip), None))
        if nm.DELIMITER.match(content):
            last_plain = False
            continue
        if not nm.is_table_line(content):
            caption = _caption(content, start + skip, markdown)
            if caption:
                f.captions.append(caption)
            nm.inline(content, start + skip, chars)
            # a heading ends where its line does: the text under it starts a block of its own
            chars.append((nm.GAP if heading else "\n", start + len(raw)))
            last_plain = False
            continue
        plain = not content.lstrip().startswith("|") or content.strip() == "|"
        if not (plain and last_plain):
            row += 1
        last_plain = plain
        chars.append((nm.SEP, start + skip))
        for a, b in nm.split_cells(content):
            cell = nm.inline(content[a:b], start + skip + a)
            f.cells.append(Cell(*nm.collapse(cell), row, table))
            chars.extend(cell)
            chars.append((nm.SEP, start + skip + b))
    f.prose, f.prose_origins = nm.collapse(chars)
    joined, origins = [], []
    for ln in f.lines:
        if joined:
            joined.append("\n")
            origins.append(origins[-1] + 1 if origins else 0)
        joined.append(ln.text)
        origins.extend(ln.origins)
    f.joined, f.joined_origins = "".join(joined), origins
    return f
