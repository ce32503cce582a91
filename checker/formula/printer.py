"""AST -> text in the document's notation, with only the parentheses precedence needs.
parse(print(x)) gives x back (up to offsets): a property test holds it to that."""
from __future__ import annotations

from checker.formula import ast

# Higher binds tighter; matches formula.lark.
_PREC = {"||": 1, "&&": 2, "chain": 3, "|": 4, "^": 5, "&": 6, "<<": 7, ">>": 7,
         "+": 8, "-": 8, "*": 9, "/": 9, "%": 9, "unary": 10, "atom": 11}


def _prec(node) -> int:
    if isinstance(node, ast.Bin):
        return _PREC[node.op]
    if isinstance(node, ast.Chain):
        return _PREC["chain"]
    if isinstance(node, ast.Unary):
        return _PREC["unary"]
    return _PREC["atom"]


def expr(node) -> str:
    if isinstance(node, ast.Num):
        return node.text
    if isinstance(node, ast.Lane):
        return node.name
    if isinstance(node, ast.Var):
        return node.name
    if isinstance(node, ast.SetLit):
        return "{" + ", ".join(str(v) for v in node.values) + "}"
    if isinstance(node, ast.Unary):
        return node.op + _wrap(node.arg, _PREC["unary"], strict=False)
    if isinstance(node, ast.Bin):
        p = _PREC[node.op]
        # left-associative: the right operand needs parentheses at equal precedence
        return f"{_wrap(node.left, p, strict=False)} {node.op} {_wrap(node.right, p, strict=True)}"
    if isinstance(node, ast.Chain):
        parts = [_wrap(node.operands[0], _PREC["chain"], strict=True)]
        for op, rhs in zip(node.ops, node.operands[1:]):
            parts.append(f"{op} {_wrap(rhs, _PREC['chain'], strict=True)}")
        return " ".join(parts)
    raise TypeError(type(node).__name__)  # pragma: no cover


def _wrap(node, parent: int, strict: bool) -> str:
    p = _prec(node)
    text = expr(node)
    return f"({text})" if p < parent or (strict and p == parent) else text


def elem(clause: ast.ElemClause) -> str:
    if clause.indices is not None:
        return "for " + " and ".join(f"{clause.letter}{k}" for k in clause.indices)
    where = f" where {expr(clause.where)}" if clause.where is not None else ""
    return f"for {clause.letter}i{where}"


def piece(p: ast.Piece) -> str:
    parts = [expr(p.value)]
    if p.elem is not None:
        parts.append(elem(p.elem))
    if p.cond is not None:
        parts.append(f"if {expr(p.cond)}")
    if p.otherwise:
        parts.append("otherwise")
    return "  ".join(parts)


def block(b: ast.Block) -> str:
    lines = [f"{d.name} = {expr(d.value)}" for d in b.definitions]
    for a in b.assignments:
        head = f"{a.target} = "
        for k, p in enumerate(a.pieces):
            lines.append((head if k == 0 else " " * len(head)) + piece(p))
        for d in a.locals:
            tail = f"  {elem(d.elem)}" if d.elem is not None else ""
            lines.append(f"{' ' * len(head)}where {d.name} = {expr(d.value)}{tail}")
    cr = b.column_range
    if cr is not None:
        lines += [f"{cr.target} = [{cr.first.name} ... {cr.last.name}]", "", "Where"]
        for d in cr.where:
            head = f"{d.target} = "
            lines += [(head if k == 0 else " " * len(head)) + piece(p) for k, p in enumerate(d.pieces)]
    return "\n".join(lines) + "\n"
