"""Integer semantics on negative operands, in both engines: floor division and modulo, and an
arithmetic right shift (`-23 >> 2` is -6). The specs' formulas seldom reach a negative value, so
the engines' agreement over the catalogue does not show it; a layout as printed, or a mutant, can."""
import pytest

from checker.errors import SourceSpan
from checker.formula.evaluate import values
from checker.formula.parser import parse_block
from checker.smt.solver import Session, bv
from checker.smt.terms import Terms
from checker.source import plain

WIDTH = 16


def _expr(text):
    return parse_block(plain(f"x = {text}\nrow = 0\ncol = 0\n", SourceSpan("f.yaml", 1, 1))).definitions[0].value


@pytest.mark.parametrize("text,value", [
    ("-%laneid >> 2", -6), ("(0 - %laneid) >> 3", -3), ("-%laneid / 4", -6), ("-%laneid % 4", 1),
    ("(%laneid - 30) / 4", -2), ("(%laneid - 30) % 4", 1), ("%laneid >> 2", 5),
])
def test_both_engines_read_negative_operands_alike(text, value):
    node = _expr(text)
    assert values(node, {"lane": [23], "i": [0]}, 1) == [value]
    term = Terms(WIDTH, {"lane": bv(23, WIDTH), "i": bv(0, WIDTH)}).term(node)
    s = Session("negative-semantics")
    assert s.check("equal", f"(= {term} {bv(value, WIDTH)})").status == "sat"
    assert s.check("differs", f"(distinct {term} {bv(value, WIDTH)})").status == "unsat"
