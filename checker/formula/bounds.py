"""Interval bounds of every integer subterm over the whole domain.

They make the z3 translation exact: the bit-vector width is chosen so no intermediate value of
any formula can overflow at any (lane, i) of the domain, whichever pieces apply. They also bound
untrusted input: a formula whose values could leave +-2**24, divide by a range holding zero, or
shift by an amount outside 0..24 is rejected with its location.
"""
from __future__ import annotations

from checker.errors import SpecError
from checker.formula import ast

LIMIT = 1 << 24


def expression_widest(src, lanes: tuple[int, int], node, env: dict) -> int:
    """The largest magnitude an expression (of a theorem's side, not a layout) reaches, its names
    ranging over the intervals of `env`."""
    b = Bounds(None, lanes, 1, src)
    b.widest = 1  # the expression's own reach, not the domain's
    b.interval(node, env)
    return b.widest


class Bounds:
    """Interval bounds of every subterm of a layout's formulas (None: of expressions given one by
    one to interval), over `lanes` and elements 0..n-1; `widest`, the largest magnitude seen."""

    def __init__(self, layout, lanes: tuple[int, int], n: int, src=None):
        self.src = layout.src if layout is not None else src
        self.env = {"i": (0, max(0, n - 1))}
        self.lanes = lanes
        self.widest = max(abs(lanes[1]), n, 1)
        if layout is None:
            return
        for name, expr in layout.definitions:
            self.env[name] = self.interval(expr, self.env)
        for formula in layout.bound:  # a piecewise name is one of its pieces' values, or -1
            env = dict(self.env)
            for name, expr in formula.locals:
                env[name] = self.interval(expr, env)
            ends = [self.interval(p.value, env) for p in formula.pieces] + [(-1, -1)]
            self.env[formula.target] = (min(lo for lo, _ in ends), max(hi for _, hi in ends))
        for formula in layout.formulas():
            env = dict(self.env)
            for name, expr in formula.locals:
                env[name] = self.interval(expr, env)
            for piece in formula.pieces:
                self.interval(piece.value, env)
                self.walk_bool(piece.guard, env)
                for r in piece.requires:
                    self.walk_bool(r, env)

    def bits(self) -> int:
        """Signed width that holds every bound, with one bit to spare for comparisons."""
        return max(8, self.widest.bit_length() + 2)

    def err(self, node, msg):
        raise SpecError(self.src.span(getattr(node, "off", 0)), msg)

    def walk_bool(self, node, env):
        if isinstance(node, ast.Unary):
            self.walk_bool(node.arg, env)
        elif isinstance(node, ast.Bin):
            self.walk_bool(node.left, env)
            self.walk_bool(node.right, env)
        elif isinstance(node, ast.Chain):
            for o in node.operands:
                if isinstance(o, ast.SetLit):
                    self.note(max((abs(v) for v in o.values), default=0))
                else:
                    self.interval(o, env)

    def note(self, magnitude: int):
        self.widest = max(self.widest, magnitude)

    def interval(self, node, env) -> tuple[int, int]:
        lo, hi = self._interval(node, env)
        if lo < -LIMIT or hi > LIMIT:
            self.err(node, f"this expression can reach {hi if hi > LIMIT else lo}; values are bounded by +-{LIMIT}")
        self.note(max(abs(lo), abs(hi)))
        return lo, hi

    def _interval(self, node, env):
        if isinstance(node, ast.Num):
            return node.value, node.value
        if isinstance(node, ast.Lane):
            return self.lanes
        if isinstance(node, ast.Var):
            return env[node.name]
        if isinstance(node, ast.Unary):
            lo, hi = self.interval(node.arg, env)
            return -hi, -lo
        a = self.interval(node.left, env)
        b = self.interval(node.right, env)
        op = node.op
        if op == "+":
            return a[0] + b[0], a[1] + b[1]
        if op == "-":
            return a[0] - b[1], a[1] - b[0]
        if op == "*":
            prods = [x * y for x in a for y in b]
            return min(prods), max(prods)
        if op in ("/", "%"):
            if b[0] <= 0 <= b[1]:
                self.err(node.right, "the divisor can be zero")
            if op == "%":
                m = max(abs(b[0]), abs(b[1]))
                return (0, m - 1) if b[0] > 0 else (-(m - 1), m - 1) if b[1] > 0 else (-(m - 1), 0)
            quots = [x // y for x in a for y in b]
            return min(quots), max(quots)
        if op in ("<<", ">>"):
            if b[0] < 0 or b[1] > 24:
                self.err(node.right, "shift amounts must lie in 0..24")
            if op == "<<":
                ends = [a[0] << b[0], a[0] << b[1], a[1] << b[0], a[1] << b[1]]
                return min(ends), max(ends)
            return a[0] >> (b[0] if a[0] < 0 else b[1]), a[1] >> (b[0] if a[1] >= 0 else b[1])
        if op in ("&", "|", "^"):
            if a[0] >= 0 and b[0] >= 0:
                top = (1 << max(a[1], b[1]).bit_length()) - 1
                return (0, min(a[1], b[1])) if op == "&" else (0, top)
            k = max(abs(a[0]), abs(a[1]), abs(b[0]), abs(b[1])).bit_length()
            return -(1 << k), (1 << k) - 1
        self.err(node, f"operator {op!r} needs integers")  # pragma: no cover
