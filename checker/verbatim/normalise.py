"""What Markdown rendering adds or hides, taken off a text before a spec's field and the document
are compared; everything else is compared character for character.

The same functions read both sides, so a field and the document are normalised alike:

- inline markup (prose and table cells only, never inside a code block): a code span's
  backticks (its text is kept as written: nothing inside it is read as markup), a stray
  backtick, a link `[text](url "title")` to its text, an image `![alt](src)` and a permalink
  `[](url)` to nothing (so is a link whose text is an icon font's glyph, U+F0C1), `**`
  (bold), a `*pair*` or `_pair_` of emphasis marks around a word (never a lone `*`: `8*i` and
  `A * B` keep theirs), a backslash escape of punctuation (`8\\*i` is `8*i`), `<br>` to a space;
- block markup: a heading's `#`s, a list item's `- `/`* `/`+ ` bullet, a table's pipes (each
  cell kept apart: a match never runs from one cell into the next) and its `|---|` row;
- whitespace: every run of spaces, tabs and line breaks is one space in prose (lines wrap where
  the renderer likes); a formula keeps its lines, each with its runs of blanks made one and its
  ends trimmed, blank lines dropped (a code block's indentation is the converter's).

Each function returns the text and, for every character of it, the offset in its input it came
from, so a difference is located in the spec file and a found text in the document file.
"""
from __future__ import annotations

import re

SEP = "\x1f"  # a table cell's edge; no field holds it, so no match spans two cells
GAP = "\x1e"  # where prose stops: a code block, a blank line between paragraphs

_INLINE = re.compile(r"""
 (?P<code>(?P<ticks>`+)(?P<code_body>.+?)(?P=ticks))
|(?P<image>!\[[^\]\n]*\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"\n]*")?\))
|(?P<link>\[(?P<link_text>[^\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"\n]*")?\))
|(?P<br><br\s*/?>)
|(?P<escape>\\(?P<escaped>[!-/:-@\[-`{-~]))
|(?P<strong>\*\*)
|(?P<em>(?<![\w*\\])\*(?P<em_body>[^\s*](?:[^*\n]*?[^\s*])?)\*(?![\w*]))
|(?P<uem>(?<![\w\\])_(?P<uem_body>[^\s_](?:[^_\n]*?[^\s_])?)_(?!\w))
|(?P<tick>`)
""", re.X)

HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+")
BULLET = re.compile(r"^[ \t]*[-*+][ \t]+")
# a numbered heading: `## 9.7.14.5.13. Title` in Markdown; in the plain-text seed a line
# `9.7.14.5.8. Title` (three numbers at least, and the full stop: "9.2 (CUDA 13.2)" opens prose)
NUMBERED = re.compile(r"^(?:[ \t]{0,3}#{1,6}[ \t]+(\d+(?:\.\d+)+)\.?|(\d+(?:\.\d+){2,})\.)[ \t]+(\S.*)$")
# the plain-text seed lost some line breaks: a section's number and title glued to the end of
# the line before (`... i = {0,..,3}9.7.14.5.9. Matrix Fragments for ...`) still start it
GLUED = re.compile(r"(?<![\d.])(\d+(?:\.\d+){3,})\.[ \t]+([A-Z].*)$")
DELIMITER = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$")
FENCE = re.compile(r"^[ \t]*(```+|~~~+)")


def inline(text: str, base: int = 0, out: list | None = None) -> list:
    """[(char, offset)] of `text` with its inline markup taken off (offsets from `base`)."""
    out = [] if out is None else out
    pos = 0
    for m in _INLINE.finditer(text):
        out.extend((text[k], base + k) for k in range(pos, m.start()))
        pos = m.end()
        kind = m.lastgroup
        if kind == "code":
            out.extend((text[k], base + k) for k in range(m.start("code_body"), m.end("code_body")))
        elif kind == "link" and not _icon(m.group("link_text")):
            inline(m.group("link_text"), base + m.start("link_text"), out)
        elif kind in ("em", "uem"):
            inline(m.group(kind + "_body"), base + m.start(kind + "_body"), out)
        elif kind == "escape":
            out.append((m.group("escaped"), base + m.start("escaped")))
        elif kind == "br":
            out.append((" ", base + m.start()))
        # image, strong, a stray backtick: nothing
    out.extend((text[k], base + k) for k in range(pos, len(text)))
    return out


def _icon(text: str) -> bool:
    """A link drawn as an icon: its text only characters of the Private Use Area, an icon font's
    glyphs (the seeds' permalinks are `[\uf0c1](url "Permalink to this headline")`)."""
    return bool(text) and all(0xE000 <= ord(ch) <= 0xF8FF for ch in text)


def collapse(chars: list) -> tuple:
    """(text, origins) of [(char, offset)]: runs of whitespace one space, none at either end or
    beside a cell's edge or a gap."""
    text, origins = [], []
    pending = None
    for ch, at in chars:
        if ch in (SEP, GAP):  # first: str.isspace() holds for both
            pending = None
            if ch == GAP and text and text[-1] == GAP:
                continue
        elif ch.isspace():
            if text and text[-1] not in (SEP, GAP) and pending is None:
                pending = at
            continue
        elif pending is not None:
            text.append(" ")
            origins.append(pending)
            pending = None
        text.append(ch)
        origins.append(at)
    return "".join(text), origins


def prose(text: str) -> tuple:
    """A field that is prose or a cell, as the document's prose is read: (text, origins). A
    line of it that is a table row (a `stated:` row of a table) is read as the document's rows
    are: its cells apart."""
    chars, at = [], 0
    for raw in text.split("\n"):
        if is_table_line(raw):
            chars.append((SEP, at))
            for a, b in split_cells(raw):
                inline(raw[a:b], at + a, chars)
                chars.append((SEP, at + b))
        else:
            inline(raw, at, chars)
            chars.append(("\n", at + len(raw)))
        at += len(raw) + 1
    return collapse(chars)


def split_cells(line: str) -> list:
    """[(start, end)] of the cells of a table line: `| a | b |` (Markdown) or `a |` (the
    plain-text seed, one cell a line). An escaped `\\|` is a pipe inside a cell."""
    bars = [m.start() for m in re.finditer(r"(?<!\\)\|", line)]
    edges = [-1] + bars + [len(line)]
    cells = [(edges[k] + 1, edges[k + 1]) for k in range(len(edges) - 1)]
    if line.lstrip().startswith("|"):
        cells = cells[1:]
    if line.rstrip().endswith("|") and cells:
        cells = cells[:-1]
    return cells or [(0, 0)]


def is_table_line(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and (stripped.startswith("|") or stripped.endswith("|"))


def formula_lines(text: str) -> tuple:
    """A formula block as lines: ([line], [[origin of each char]]), blank lines dropped."""
    lines, origins = [], []
    at = 0
    for raw in text.split("\n"):
        chars = [(ch, at + k) for k, ch in enumerate(raw)]
        norm, orig = collapse(chars)
        if norm:
            lines.append(norm)
            origins.append(orig)
        at += len(raw) + 1
    return lines, origins


def code_line(raw: str, base: int) -> tuple:
    """A line of a code block, or a formula's line: blanks made one, nothing else touched."""
    return collapse([(ch, base + k) for k, ch in enumerate(raw)])


def prose_line(raw: str, base: int) -> tuple:
    """A line of prose as a formula line (the plain-text seed prints formulas without a code
    block): its markup taken off, blanks made one."""
    return collapse(inline(raw, base))
