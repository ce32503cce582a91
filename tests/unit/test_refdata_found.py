"""A reference data file's error says what was found as well as what was expected: a list of the
wrong length by its length ("expected [rows, cols], found a list" said nothing of what was wrong
with the list), a blank string as blank ("expected a string, found the string ''" contradicted
itself)."""
import os

import pytest

from checker.spec.refdata import DATA

GMMA = open(os.path.join(DATA, "cute-gmma.yaml"), encoding="utf-8").read()


def _at(text: str, new: str, needle: str) -> tuple:
    before = text[:text.index(new) + new.index(needle)]
    return before.count("\n") + 1, len(before) - before.rfind("\n")


@pytest.mark.parametrize("old, new, needle, what", [
    ("    tile: [64, 8]\n", "    tile: [64, 8, 1]\n", "[64", "expected [rows, cols], found a list of 3 items"),
    ("    tile: [64, 8]\n", "    tile: [64]\n", "[64", "expected [rows, cols], found a list of 1 item"),
    ("    tile: [64, 8]\n", "    tile: []\n", "[]", "expected [rows, cols], found an empty list"),
    ("  - name: ALayout_64x16\n", "  - name: '  '\n", "'  '", "expected a string, found an empty string"),
])
def test_what_was_found_is_said(refused, old, new, needle, what):
    assert old in GMMA, old
    text = GMMA.replace(old, new, 1)
    line, col = _at(text, new, needle)
    refused(text, line, col, what)
