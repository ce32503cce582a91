"""A user's layout, read from the command line's inputs into a candidate
(checker.compare.candidates). This module reads a CuTe layout string against a fragment's tile;
its siblings read the files: bases (Triton's linear-layout bases), table (a CSV table), pyfunction
(a Python function of the user's own module), each through textfile (bounded, UTF-8, located).

Files are untrusted: read bounded (checker.bounded), parsed as data (json, csv lines), every error
located at file:line:col and raised as a SpecError (exit 3). The Python function is the one input
that runs code: the user's own module, imported because the user asked for it on the command
line, called only over the fragment's domain (threads x elements, at most a few thousand calls).
"""
from __future__ import annotations

import checker.compare.candidates as candidates
from checker.errors import SourceSpan
from checker.families import FAMILIES
from checker.source import plain


def cute_tile(fragment) -> tuple:
    """(tile, transposed, names): CuTe's tile for a fragment. CuTe's A is M x K and C is M x N; an
    operand whose columns are N and rows not M (B, scale_B) it writes N x K: (row, col) is (col, row)."""
    rows, cols = FAMILIES[fragment.family].operand(fragment.operand).dims
    if cols == "n" and rows != "m":
        return (fragment.cols, fragment.rows), True, "N x K"
    return (fragment.rows, fragment.cols), False, "M x K" if fragment.operand == "A" else "M x N"


def cute(text: str, fragment, where: str = "--cute") -> candidates.Cute:
    import checker.compare.cute as cute_text

    layout = cute_text.parse(plain(text, SourceSpan(where, 1, 1)))
    tile, transposed, names = cute_tile(fragment)
    return candidates.Cute(layout, tile, transposed, names=names)
