"""A user's layout as a CSV table `thread,i,row,col`, read from a file as data: every error
located at file:line:col and raised as a SpecError (exit 3)."""
from __future__ import annotations

import re

import checker.compare.candidates as candidates
from checker.compare.textfile import read as _read
from checker.errors import SourceSpan, SpecError


def table(path: str) -> candidates.Table:
    """CSV `thread,i,row,col`, one entry a line; an optional header line of those four names, the
    first line that is neither blank nor a `#` comment (a file may open with a comment saying what
    it is)."""
    text = _read(path)
    entries: dict = {}
    lines: dict = {}  # (thread, i) -> the line that gave it, for the message when it comes again
    first = True
    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        header, first = first, False
        fields, at = [], 0
        for f in raw.split(","):
            fields.append((at, f))
            at += len(f) + 1
        if len(fields) != 4:
            raise SpecError(SourceSpan(path, n, 1), f"expected 4 fields (thread,i,row,col), found {len(fields)}")
        if header and [f.strip() for _, f in fields] == ["thread", "i", "row", "col"]:
            continue
        values = []
        for k, (at, f) in enumerate(fields):
            f = f.strip()
            if not re.fullmatch(r"[0-9]{1,6}", f) or int(f) >= candidates.MAX_COORD:
                what = ("thread", "i", "row", "col")[k]
                # a header of other names (`lane,i,row,col`) was answered as a bad number alone
                named = " (a header line, first, is exactly thread,i,row,col)" if header and not f.isdigit() else ""
                raise SpecError(SourceSpan(path, n, at + 1),
                                f"{what}: expected an integer in 0..{candidates.MAX_COORD - 1}, found {f!r}{named}")
            values.append(int(f))
        t, i, r, c = values
        lines.setdefault((t, i), n)
        if (t, i) in entries:
            raise SpecError(SourceSpan(path, n, 1), f"thread {t}, i {i} is given twice (first at line {lines[(t, i)]})")
        if len(entries) >= candidates.MAX_TABLE:
            raise SpecError(SourceSpan(path, n, 1), f"more than {candidates.MAX_TABLE} entries (a fragment "
                            "holds at most 16,384 points)")
        entries[(t, i)] = (r, c)
    if not entries:
        raise SpecError(SourceSpan(path, 1, 1), "no entries: expected lines thread,i,row,col")
    return candidates.Table(entries, f"the table {path}")
