"""AST -> SMT-LIB terms (text): one method per node kind.

Values are signed bit-vectors of a width chosen by checker.formula.bounds, wide enough that no
subterm overflows anywhere in the domain, so bit-vector arithmetic equals integer arithmetic.
Division and modulo are floor operations, as in the Python evaluator.
"""
from __future__ import annotations

from checker.formula import ast
from checker.smt.solver import bv

_BIN = {"+": "bvadd", "-": "bvsub", "*": "bvmul",
        "%": "bvsmod",  # the sign of the divisor, as Python
        "<<": "bvshl", ">>": "bvashr",  # arithmetic, as Python
        "&": "bvand", "|": "bvor", "^": "bvxor", "&&": "and", "||": "or"}
_CMP = {"<": "bvslt", "<=": "bvsle", ">": "bvsgt", ">=": "bvsge", "=": "=", "==": "=", "!=": "distinct"}


def conj(parts) -> str:
    parts = list(parts)
    if not parts:
        return "true"
    return parts[0] if len(parts) == 1 else f"(and {' '.join(parts)})"


def disj(parts) -> str:
    parts = list(parts)
    if not parts:
        return "false"
    return parts[0] if len(parts) == 1 else f"(or {' '.join(parts)})"


class Terms:
    def __init__(self, width: int, env: dict):
        self.width = width
        self.env = env  # name -> term text; 'lane' and 'i' included

    def const(self, v: int) -> str:
        return bv(v, self.width)

    def term(self, node) -> str:
        return getattr(self, "t_" + type(node).__name__)(node)

    def t_Num(self, node):
        return self.const(node.value)

    def t_Lane(self, node):
        return self.env["lane"]

    def t_Var(self, node):
        return self.env[node.name]

    def t_Unary(self, node):
        return f"({'bvneg' if node.op == '-' else 'not'} {self.term(node.arg)})"

    def t_Bin(self, node):
        a, b = self.term(node.left), self.term(node.right)
        if node.op == "/":
            return f"(bvsdiv (bvsub {a} (bvsmod {a} {b})) {b})"  # exact division, so it floors
        return f"({_BIN[node.op]} {a} {b})"

    def t_Chain(self, node):
        parts = []
        left = self.term(node.operands[0])
        for op, rhs in zip(node.ops, node.operands[1:]):
            if isinstance(rhs, ast.SetLit):
                parts.append(disj(f"(= {left} {self.const(v)})" for v in rhs.values))
                continue
            right = self.term(rhs)
            parts.append(f"({_CMP[op]} {left} {right})")
            left = right
        return conj(parts)


def first(pieces, width) -> str:
    """The value of the first piece whose guard holds, -1 where none does."""
    out = bv(-1, width)
    for g, v, _ in reversed(pieces):
        out = f"(ite {g} {v} {out})"
    return out


def formula_terms(formula, terms: Terms, macro=None):
    """[(guard, value, requires)] per piece, with the formula's local definitions in scope.
    `macro(name, sort, body)`, when given, names each of them once and returns its use."""
    name = macro or (lambda _name, _sort, body: body)
    local = Terms(terms.width, dict(terms.env))
    bits = f"(_ BitVec {terms.width})"
    for var, expr in formula.locals:
        local.env[var] = name(f"{formula.target}.{var}", bits, local.term(expr))
    return [(name(f"{formula.target}.g{k}", "Bool", local.term(p.guard)),
             name(f"{formula.target}.v{k}", bits, local.term(p.value)),
             name(f"{formula.target}.r{k}", "Bool", conj(local.term(r) for r in p.requires)))
            for k, p in enumerate(formula.pieces)]
