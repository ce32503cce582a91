"""The formula language: the document's notation parses, errors point at the character, the
printer round-trips, and the evaluator has the semantics the z3 translation assumes."""
import pytest
from hypothesis import given, settings, strategies as st

from checker.errors import SourceSpan, SpecError
from checker.formula import ast, printer
from checker.formula.evaluate import values
from checker.formula.elements import parse_elements
from checker.formula.parser import parse_block
from checker.source import plain


def src(text):
    return plain(text, SourceSpan("f.yaml", 10, 5))


def expr_of(text):
    b = parse_block(src(f"x = {text}\nrow = 0\ncol = 0\n"))
    return b.definitions[0].value


@pytest.mark.parametrize("text,value", [
    ("%laneid >> 2", 5), ("%laneid % 4", 3), ("0x1F & 255", 31), ("0b10 + 1", 3), ("1 + 2 * 3", 7),
    ("(1 + 2) * 3", 9), ("%laneid - 2 - 1", 20), ("-%laneid % 4", 1), ("7 / 2", 3), ("-7 / 2", -4),
    ("1 << 3 + 1", 16), ("6 & 3 | 8", 10), ("5 ^ 1", 4),
])
def test_integer_semantics(text, value):
    assert values(expr_of(text), {"lane": [23], "i": [0]}, 1) == [value]


@pytest.mark.parametrize("cond,i,holds", [
    ("0 <= i < 2 || 4 <= i < 6", 5, True), ("0 <= i < 2 || 4 <= i < 6", 2, False),
    ("i = {0,..,3}", 3, True), ("i = {0,...,3}", 4, False), ("i = {0, 1}", 1, True),
    ("i % 2 = 0", 4, True), ("i >= 4 && i != 5", 5, False), ("!(i < 2)", 1, False),
])
def test_conditions(cond, i, holds):
    b = parse_block(src(f"row = 0   for ai where {cond}\ncol = 0\n"))
    assert values(b.assignments[0].pieces[0].elem.where, {"lane": [0], "i": [i]}, 1) == [holds]


def test_document_forms_parse():
    b = parse_block(src("row = groupID for ai where i < 2\ngroupID + 8 Otherwise\n"
                        "col =  threadID_in_group       for a0 and a1\n"
                        "       threadID_in_group + 4   for a2 and a3\n".replace("groupID", "%laneid")
                        .replace("threadID_in_group", "%laneid")))
    row, col = b.assignments
    assert row.pieces[1].otherwise and col.pieces[1].elem.indices == (2, 3)


def test_error_points_at_the_character():
    with pytest.raises(SpecError) as e:
        parse_block(src("row = 0\ncol = (i * 2) - 2 + (%laneid Otherwise\n"))
    assert str(e.value.span) == "f.yaml:10:42"  # plain() maps every offset onto one line
    assert "expected ')'" in e.value.message


def test_a_parse_error_names_what_was_expected_in_the_documents_words():
    """The expected tokens were lark's names (`__anon_0, __anon_1, add_op, ampersand, ...`), the
    words sorted after them and cut off; a keyword one letter off is named."""
    with pytest.raises(SpecError) as e:
        parse_block(src("row = %laneid for ai where i < 2\n%laneid + 8 Otherwize\ncol = 0\n"))
    msg = e.value.message
    assert "unexpected 'Otherwize' (did you mean 'otherwise'?), expected 'for', 'if', 'otherwise', '&&'" in msg, msg
    assert "anon" not in msg and "add_op" not in msg and "ampersand" not in msg


@pytest.mark.parametrize("bad", ["row = max(i)\ncol = 0", "row = a.b\ncol = 0", "row = (1\ncol = 0",
                                 "row = 1 +\ncol = 0", "row = i i\ncol = 0", "row = 1 otherwise otherwise\ncol = 0"])
def test_rejects(bad):
    with pytest.raises(SpecError):
        parse_block(src(bad))


def test_elements():
    assert parse_elements(src("a0, a1, …, a126, a127")) == [f"a{k}" for k in range(128)]
    assert parse_elements(src("c0, c1, c1, c2")) == ["c0", "c1", "c1", "c2"]
    with pytest.raises(SpecError):
        parse_elements(src("b0, b1. b2. b3"))
    with pytest.raises(SpecError):
        parse_elements(src("a0, …, a7"))


# random expressions from the grammar: printing then parsing gives the same tree back
_leaf = st.one_of(st.integers(0, 300).map(lambda v: ast.Num(v, str(v), 0)), st.just(ast.Lane(0)),
                  st.sampled_from(["i", "g"]).map(lambda n: ast.Var(n, 0)))


def _int_expr():
    return st.recursive(_leaf, lambda inner: st.one_of(
        st.builds(lambda a: ast.Unary("-", a, 0), inner),
        st.builds(lambda op, a, b: ast.Bin(op, a, b, 0),
                  st.sampled_from(["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"]), inner, inner)),
        max_leaves=12)


def _bool_expr():
    cmp = st.builds(lambda ops, xs: ast.Chain(tuple(xs[: len(ops) + 1]), tuple(ops), 0),
                    st.lists(st.sampled_from(["<", "<=", ">", ">=", "=", "!="]), min_size=1, max_size=2),
                    st.lists(_int_expr(), min_size=3, max_size=3))
    return st.recursive(cmp, lambda inner: st.one_of(
        st.builds(lambda a: ast.Unary("!", a, 0), inner),
        st.builds(lambda op, a, b: ast.Bin(op, a, b, 0), st.sampled_from(["&&", "||"]), inner, inner)),
        max_leaves=4)


def _strip(node):
    """Offsets and literal spellings aside."""
    if isinstance(node, ast.Num):
        return ("num", node.value)
    if isinstance(node, ast.Lane):
        return ("lane",)
    if isinstance(node, ast.Var):
        return ("var", node.name)
    if isinstance(node, ast.Unary):
        return (node.op, _strip(node.arg))
    if isinstance(node, ast.Bin):
        return (node.op, _strip(node.left), _strip(node.right))
    if isinstance(node, ast.Chain):
        return ("chain", node.ops, tuple(_strip(o) for o in node.operands))
    return node


@settings(max_examples=300, deadline=None)
@given(_int_expr(), _bool_expr())
def test_print_parse_round_trip(value, cond):
    text = f"g = 1\nrow = {printer.expr(value)}   for ai where {printer.expr(cond)}\ncol = 0\n"
    b = parse_block(src(text))
    piece = b.assignments[0].pieces[0]
    assert _strip(piece.value) == _strip(value)
    assert _strip(piece.elem.where) == _strip(cond)


def test_cells_name_the_points_where_no_piece_applies():
    """The engines' map takes -1 where no piece of row or col applies (smt.terms.first); a figure
    asks for None instead, since a layout as printed may itself reach -1."""
    from checker.formula.evaluate import cells
    from checker.formula.lower import lower
    src = plain("row = %laneid - 1   for ai where i < 2\ncol = i\n", SourceSpan("t.yaml", 1, 1))
    layout = lower(parse_block(src), src, "a")
    points = [(0, 0), (0, 1), (3, 2)]
    assert cells(layout, points) == ([-1, -1, -1], [0, 1, 2])
    assert cells(layout, points, missing=None) == ([-1, -1, None], [0, 1, 2])
