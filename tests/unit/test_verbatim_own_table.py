"""A formula is found only under its own table: the same text printed under another table of
its section (another fragment's formula) is not found, and says where it is."""
import dataclasses
import os

from conftest import CASES

from checker.verbatim import document, fields, match

HERE = os.path.join(CASES, "verbatim")
DOC = os.path.join(HERE, "document")
SPEC = os.path.join(HERE, "m16n8k256.yaml")


def test_a_formula_tied_to_another_tables_row_is_not_found():
    doc = document.read([(None, DOC)])
    got = {f.label: f for f in fields.read(SPEC)}
    a, b = got["A.b1 formula"], got["B.b1 formula"]
    assert a.kind == fields.FORMULA and a.row and b.row and a.row != b.row
    assert match.check(a, doc).status == match.FOUND  # the control: under its own table
    # A.b1's formula, claimed for B.b1's table: the document prints it in the section, under A's
    moved = dataclasses.replace(a, row=b.row, other_rows=b.other_rows)
    outcome = match.check(moved, doc)
    assert outcome.failed and outcome.status == match.MISSING
    assert "but not under its own table" in outcome.why and "found elsewhere in it" in outcome.why
