"""Where each character of a YAML scalar's value stands in the file.

The parser hands over a scalar's value and two marks, its start and end: a folded or quoted scalar's
value is not the text between them (a line break and its indentation fold into one space, `\\n`
is two characters read as one, `''` one quote). Here that text is read again, the way libyaml reads
it, keeping for each character of the value the offset of the source character it came from (an
escape's backslash, a fold's line break). What is rebuilt must be the parser's value, character for
character; where it is not (a reading this module does not know), there is no mapping at all, and
the caller places every character at the scalar's start rather than somewhere wrong.
"""
from __future__ import annotations

import re
from bisect import bisect_right

_BREAKS = "\r\n\x85\u2028\u2029"  # libyaml's line breaks: its marks count lines by them
_BLANKS = " \t"
_WHITE = _BLANKS + _BREAKS
_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_ESCAPES = {"0": "\0", "a": "\x07", "b": "\x08", "t": "\t", "\t": "\t", "n": "\n", "v": "\x0b", "f": "\x0c",
            "r": "\r", "e": "\x1b", " ": " ", '"': '"', "\\": "\\", "/": "/", "N": "\x85", "_": "\xa0",
            "L": "\u2028", "P": "\u2029"}
_PROPERTIES = re.compile(r"(?:[!&]\S*[ \t\r\n\x85\u2028\u2029]*)+")
_CODES = {"x": 2, "u": 4, "U": 8}
_HEX = frozenset("0123456789abcdefABCDEF")


def _norm(ch: str) -> str:
    """A line break as the value holds it: LS and PS stay themselves, the others are a newline."""
    return ch if ch in "\u2028\u2029" else "\n"


def _after_break(raw: str, i: int) -> int:
    return i + 2 if raw.startswith("\r\n", i) else i + 1


class _Out:
    """The value being rebuilt: its characters and, for each, the offset it came from."""

    __slots__ = ("chars", "at", "tail")

    def __init__(self, tail: int):
        self.chars: list = []
        self.at: list = []
        self.tail = tail  # just past the source of the last character: the value's end

    def put(self, ch: str, offset: int, tail: int):
        self.chars.append(ch)
        self.at.append(offset)
        self.tail = tail


def _fold(raw: str, i: int, stop: int, out: _Out) -> int:
    """A run of blanks and line breaks in a flow (plain or quoted) scalar, from `i`: blanks alone
    are kept; with a break, the blanks around it go, one newline break alone is a space, and each
    break after the first is itself. Returns where the run ends."""
    j, breaks = i, []
    while j < stop and raw[j] in _WHITE:
        if raw[j] in _BLANKS:
            j += 1
        else:
            breaks.append(j)
            j = _after_break(raw, j)
    if not breaks:
        for k in range(i, j):
            out.put(raw[k], k, k + 1)
        return j
    first = breaks[0]
    if _norm(raw[first]) != "\n":
        out.put(raw[first], first, _after_break(raw, first))
    elif len(breaks) == 1:
        out.put(" ", first, _after_break(raw, first))
    for b in breaks[1:]:
        out.put(_norm(raw[b]), b, _after_break(raw, b))
    return j


def _flow(raw: str, style: str) -> _Out | None:
    """A plain, single- or double-quoted scalar; raw holds its quotes."""
    quoted = style in ("'", '"')
    start, stop = (1, len(raw) - 1) if quoted else (0, len(raw))
    if quoted and (len(raw) < 2 or raw[0] != style or raw[-1] != style):
        return None
    out = _Out(start)
    i = start
    while i < stop:
        ch = raw[i]
        if ch in _WHITE:
            i = _fold(raw, i, stop, out)
        elif ch == "\\" and style == '"':
            code = raw[i + 1] if i + 1 < stop else ""
            if code in _ESCAPES:
                out.put(_ESCAPES[code], i, i + 2)
                i += 2
            elif code in _CODES:
                digits = raw[i + 2:i + 2 + _CODES[code]]
                if len(digits) != _CODES[code] or not _HEX.issuperset(digits):
                    return None
                if int(digits, 16) > 0x10FFFF:  # no character: chr() would raise
                    return None
                out.put(chr(int(digits, 16)), i, i + 2 + len(digits))
                i += 2 + len(digits)
            elif code and code in _BREAKS:
                # an escaped line break joins the lines: the indentation after it goes, the
                # breaks of any empty lines after it stay
                i = _after_break(raw, i + 1)
                while i < stop and raw[i] in _WHITE:
                    if raw[i] in _BLANKS:
                        i += 1
                    else:
                        out.put(_norm(raw[i]), i, _after_break(raw, i))
                        i = _after_break(raw, i)
            else:
                return None
        elif ch == "'" and style == "'" and raw[i + 1:i + 2] == "'":
            out.put("'", i, i + 2)
            i += 2
        else:
            out.put(ch, i, i + 1)
            i += 1
    return out


def _lines(raw: str, start: int) -> list:
    """(start, end, end past its break or None at the end of the text) of each line from `start`."""
    lines, i = [], start
    for m in _BREAK.finditer(raw, start):
        lines.append((i, m.start(), m.end()))
        i = m.end()
    if i < len(raw):
        lines.append((i, len(raw), None))
    return lines


def _block(raw: str, value: str) -> _Out | None:
    """A block scalar (`>` folded, `|` literal) from its indicator to its end mark."""
    folded = raw[:1] == ">"
    i, chomp, digit = 1, None, False
    while i < len(raw) and raw[i] in "+-0123456789" and i < 3:
        chomp, digit = (raw[i] if raw[i] in "+-" else chomp), digit or raw[i].isdigit()
        i += 1
    head = _BREAK.search(raw, i)
    lines = _lines(raw, head.end()) if head else []
    at = next((n for n, ln in enumerate(lines) if raw[ln[0]:ln[1]].strip(" ")), len(lines))
    empty = max((ln[1] - ln[0] for ln in lines[:at]), default=0)  # the spaces of the empty lines before it
    if at == len(lines):
        indent = empty + 1
    elif digit:
        # the indentation is the parent's plus the digit, and the parent is not in view: the
        # value's first line says how many of its spaces are its own
        text, kept = raw[lines[at][0]:lines[at][1]], value.lstrip("\n\u2028\u2029")
        indent = len(text) - len(text.lstrip(" ")) - (len(kept) - len(kept.lstrip(" ")))
    else:
        text = raw[lines[at][0]:lines[at][1]]
        indent = max(len(text) - len(text.lstrip(" ")), empty, 1)
    out, k = _Out(0), 0

    def breaks() -> list:
        """The empty lines from line k on (blanks up to the indentation, then a break)."""
        nonlocal k
        found = []
        while k < len(lines):
            s, e, past = lines[k]
            body = raw[s:e]
            if past is None or len(body) > indent or body.strip(" "):
                break
            found.append(e)
            k += 1
        return found

    def content() -> bool:
        return k < len(lines) and raw[lines[k][0]:lines[k][0] + indent] == " " * indent and \
            lines[k][0] + indent < lines[k][1]

    pending, line_break = breaks(), None
    while content():
        for b in pending:
            out.put(_norm(raw[b]), b, _after_break(raw, b))
        s, e, past = lines[k]
        lead = raw[s + indent] not in _BLANKS
        for j in range(s + indent, e):
            out.put(raw[j], j, j + 1)
        line_break = e if past is not None else None
        k += 1
        pending = breaks()
        if line_break is None or not content():
            break
        if folded and _norm(raw[line_break]) == "\n" and lead and raw[lines[k][0] + indent] not in _BLANKS:
            if not pending:
                out.put(" ", line_break, lines[k][0])
        else:
            out.put(_norm(raw[line_break]), line_break, lines[k][0])
    if chomp != "-" and line_break is not None:
        out.put(_norm(raw[line_break]), line_break, _after_break(raw, line_break))
    if chomp == "+":
        for b in pending:
            out.put(_norm(raw[b]), b, _after_break(raw, b))
    return out


def origins(text: str, start, end, style, value: str) -> list | None:
    """(line, column), 1-based, of each character of `value` and of its end, for the scalar
    between the marks `start` and `end` of `text`; None where its text does not rebuild the value."""
    raw = text[start.index:end.index]
    tagged = _PROPERTIES.match(raw)  # the marks hold a tag (`!!str`) and an anchor
    base = tagged.end() if tagged else 0
    out = _block(raw[base:], value) if style in ("|", ">") else _flow(raw[base:], style)
    if out is None or "".join(out.chars) != value:
        return None
    starts = [m.end() for m in _BREAK.finditer(raw)]
    line0, col0 = start.line + 1, start.column + 1
    places = []
    for offset in (base + o for o in out.at + [out.tail]):
        n = bisect_right(starts, offset)
        places.append((line0 + n, offset - starts[n - 1] + 1) if n else (line0, col0 + offset))
    return places


def split_lines(text: str) -> list:
    """The text's lines as libyaml's marks number them."""
    return _BREAK.split(text)


def place(text: str, offset: int) -> tuple:
    """(line, column), 1-based, of `offset` in `text`, lines counted as libyaml's marks count them."""
    starts = [m.end() for m in _BREAK.finditer(text, 0, offset)]
    return (len(starts) + 1, offset - (starts[-1] if starts else 0) + 1)
