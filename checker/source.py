"""Text taken from a spec, with the file position of every character.

Formulas are parsed from YAML scalars and may be patched by errata (a printed substring
replaced by a reading), so positions are kept per character rather than per scalar: an error in
the reading still points at the YAML line it came from.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import repeat

from checker.bounded import shown
from checker.errors import SourceSpan, SpecError
from checker import positions


@dataclass(frozen=True)
class SourceText:
    """A text from a spec file, with the file position of every character."""

    text: str
    file: str
    origins: tuple = field(repr=False)  # one (line, col) per character, plus one for the end (not printed: thousands)

    def span(self, offset: int) -> SourceSpan:
        offset = max(0, min(offset, len(self.origins) - 1))
        line, col = self.origins[offset]
        return SourceSpan(self.file, line, col)

    def replace_once(self, printed: str, value: "SourceText", where: SourceSpan) -> "SourceText":
        count = self.text.count(printed)
        if count != 1:
            found = "does not occur" if count == 0 else f"occurs {count} times"
            raise SpecError(where, f"erratum's printed text {shown(printed)} {found} in the field it corrects",
                            "quote a substring that occurs exactly once")
        start = self.text.index(printed)
        end = start + len(printed)
        origins = self.origins[:start] + value.origins[: len(value.text)] + self.origins[end:]
        return SourceText(self.text[:start] + value.text + self.text[end:], self.file, origins)


_LAST: list = [(None, [])]  # (text, its lines): every node of a file splits the same text


def _lines(doc_text: str) -> list:
    """The file's lines, split once per file rather than once per node: splitting a 256 KB file
    for each of its hundreds of scalars would be quadratic (seconds). Split where the marks count
    lines: libyaml also ends one at a lone CR, NEL, LS and PS."""
    last = _LAST[0]
    if last[0] is not doc_text:
        odd = "\r" in doc_text or "\x85" in doc_text or "\u2028" in doc_text or "\u2029" in doc_text
        last = _LAST[0] = (doc_text, positions.split_lines(doc_text) if odd else doc_text.split("\n"))
    return last[1]


def from_node(node, doc_text: str, file: str) -> SourceText:
    """Positions for a YAML scalar node: a literal block's lines, a one-line scalar's columns,
    any other scalar read again from its marks (checker.positions)."""
    value = node.value
    line0, col0 = node.start_mark.line, node.start_mark.column
    if not isinstance(value, str):  # callers check the type first; a list or mapping here is still an input error
        raise SpecError(SourceSpan(file, line0 + 1, col0 + 1), "expected text, found a list or mapping")
    lines = _lines(doc_text)
    origins: list = []
    if node.style == "|":
        raw_line = line0 + 1
        for text_line in value.split("\n"):
            raw = lines[raw_line].rstrip("\r") if raw_line < len(lines) else ""
            while raw_line < len(lines) and not raw.strip() and text_line:
                raw_line += 1  # blank lines the block scalar dropped at its start
                raw = lines[raw_line].rstrip("\r") if raw_line < len(lines) else ""
            indent = len(raw) - len(text_line) if raw.endswith(text_line) else 0
            origins.extend(zip(repeat(raw_line + 1), range(indent + 1, indent + len(text_line) + 2)))
            raw_line += 1
        origins = origins[: len(value) + 1]
    else:
        shift = 1 if node.style in ("'", '"') else 0
        end = node.end_mark
        if end.line == line0 and end.index - node.start_mark.index == len(value) + 2 * shift:
            # one line and no escape (each escape is longer than what it stands for): the value is
            # the text between the marks, as most of a spec's scalars are
            origins = list(zip(repeat(line0 + 1), range(col0 + 1 + shift, col0 + shift + len(value) + 2)))
        else:
            origins = positions.origins(doc_text, node.start_mark, end, node.style, value) or \
                [(line0 + 1, col0 + 1)] * (len(value) + 1)
    while len(origins) < len(value) + 1:
        origins.append(origins[-1] if origins else (line0 + 1, col0 + 1))
    return SourceText(value, file, tuple(origins))


def plain(text: str, span: SourceSpan) -> SourceText:
    return SourceText(text, span.file, tuple(zip(repeat(span.line), range(span.col, span.col + len(text) + 1))))
