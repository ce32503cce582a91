"""Plain text for a terminal: the text renderers (prove, errata, validate, eval, where, table,
compare, crosscheck, simulate, mutate, probe, and checker.cli for every command's one-line error) hand
their lines to `lines` and print what it gives.

Those lines echo what the checker did not write: a spec's path (given, or found in a folder given),
a fragment id, a spec's text. A file name may hold any byte but NUL and '/': an escape sequence in it
would recolour, move the cursor or retitle the terminal, a carriage return would overwrite the
line, and a newline would print a result line of the path's choosing (`...: A.f16: proved ...`).
So each line is written with every character that is not printable escaped as Python's repr
escapes it (\\x1b, \\n, \\r, \\u202e, ...): a line of the output stays one line, and shows what the
input held. Printable text, the backslash included, is printed as it is: an ordinary path or
formula reads as it always did, and the escapes are told apart from the text by context, as a
person reads them (exports, which must be exact, escape the backslash too: checker.export.safe).

JSON and SARIF are not text of this kind: json escapes every control character itself, and what
their readers get must be the path itself, so they never pass through here.
"""
from __future__ import annotations


def escape(value) -> str:
    """`value` as one line of plain text: what is not printable written as repr writes it."""
    text = str(value)
    if text.isprintable():  # the common case, a line with nothing to escape, in one pass
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def lines(rows, end: str = "\n") -> str:
    """`rows` (lines without their line breaks) as text: each escaped, joined by line breaks, and
    `end` after the last (the empty string for a block that a caller joins with others); no rows,
    no text."""
    rows = [escape(row) for row in rows]
    return "\n".join(rows) + end if rows else ""


def rejected(head: str, message: str) -> list:
    """`head` and a colon, then a tool's message (a kernel ptxas rejects), each of its lines
    indented: rows for `lines`, which escapes them (the head names the spec's path)."""
    return [f"{head}:"] + ["    " + line for line in message.split("\n")]
