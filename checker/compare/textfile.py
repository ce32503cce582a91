"""A user's layout file read as text: bounded (checker.bounded), UTF-8, and an offset into it
said as file:line:col. The readers of checker compare's files (bases, table) and of a user's
Python module share these, so each file is read and located the same way."""
from __future__ import annotations

from checker.errors import SourceSpan, SpecError

MAX_FILE = 4 << 20


def read(path: str) -> str:
    from checker.bounded import read_regular

    data = read_regular(path, MAX_FILE)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise SpecError(SourceSpan(path, line, 1), "not UTF-8 text") from None


def where(text: str, path: str, offset: int) -> SourceSpan:
    line = text.count("\n", 0, offset) + 1
    return SourceSpan(path, line, offset - (text.rfind("\n", 0, offset) + 1) + 1)
