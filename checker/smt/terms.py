"""AST -> z3 terms: one method per node kind.

Values are signed bit-vectors of a width chosen by checker.formula.bounds, wide enough that no
subterm overflows anywhere in the domain, so bit-vector arithmetic equals integer arithmetic.
Division and modulo are floor operations, as in the Python evaluator.
"""
from __future__ import annotations

import z3

from checker.formula import ast


class Terms:
    def __init__(self, width: int, env: dict):
        self.width = width
        self.env = env  # name -> z3 term; 'lane' and 'i' included

    def const(self, v: int):
        return z3.BitVecVal(v, self.width)

    def term(self, node):
        return getattr(self, "t_" + type(node).__name__)(node)

    def t_Num(self, node):
        return self.const(node.value)

    def t_Lane(self, node):
        return self.env["lane"]

    def t_Var(self, node):
        return self.env[node.name]

    def t_Unary(self, node):
        arg = self.term(node.arg)
        return -arg if node.op == "-" else z3.Not(arg)

    def t_Bin(self, node):
        a, b = self.term(node.left), self.term(node.right)
        op = node.op
        if op == "&&":
            return z3.And(a, b)
        if op == "||":
            return z3.Or(a, b)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "%":
            return a % b  # bvsmod: sign of the divisor, as Python
        if op == "/":
            return (a - a % b) / b  # exact division, so it floors
        if op == "<<":
            return a << b
        if op == ">>":
            return a >> b  # arithmetic, as Python
        if op == "&":
            return a & b
        if op == "|":
            return a | b
        if op == "^":
            return a ^ b
        raise ValueError(op)  # pragma: no cover

    def t_Chain(self, node):
        parts = []
        left = self.term(node.operands[0])
        for op, rhs in zip(node.ops, node.operands[1:]):
            if isinstance(rhs, ast.SetLit):
                parts.append(z3.Or([left == self.const(v) for v in rhs.values]) if rhs.values else z3.BoolVal(False))
                continue
            right = self.term(rhs)
            parts.append({"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right,
                          "=": left == right, "==": left == right, "!=": left != right}[op])
            left = right
        return parts[0] if len(parts) == 1 else z3.And(parts)


def scope(layout, width: int, lane, i) -> Terms:
    terms = Terms(width, {"lane": lane, "i": i})
    for name, expr in layout.definitions:
        terms.env[name] = terms.term(expr)
    for formula in layout.bound:  # firstcol, lastcol: the first applying piece, as the evaluator takes it
        terms.env[formula.target] = first(formula_terms(formula, terms), width)
    return terms


def first(pieces, width):
    """The value of the first piece whose guard holds, -1 where none does."""
    out = z3.BitVecVal(-1, width)
    for g, v, _ in reversed(pieces):
        out = z3.If(g, v, out)
    return out


def formula_terms(formula, terms: Terms):
    """[(guard, value, requires)] per piece, with the formula's local definitions in scope."""
    local = Terms(terms.width, dict(terms.env))
    for name, expr in formula.locals:
        local.env[name] = local.term(expr)
    return [(local.term(p.guard), local.term(p.value),
             z3.And([local.term(r) for r in p.requires]) if p.requires else z3.BoolVal(True))
            for p in formula.pieces]
