"""A layout's formulas as SMT-LIB macros, and the pieces every query about layouts is made of:
a domain of (lane, i), a lane's membership in a set of lanes, z3's answer.

Values are signed bit-vectors (checker.smt.terms); `signed` reads one back from a model."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from checker.smt.solver import bv, define
from checker.smt.terms import Terms, conj, disj, first, formula_terms


@dataclass
class Answer:
    """z3's answer about one property, with its smallest witness when refuted."""

    verdict: str  # proved | refuted | unknown
    witness: dict | None = None
    reason: str = ""
    queries: list = field(default_factory=list)
    seconds: float = 0.0


def _ranges(lanes: tuple) -> list:
    out = []
    for lane in lanes:
        if out and out[-1][1] == lane - 1:
            out[-1][1] = lane
        else:
            out.append([lane, lane])
    return out


def member(lane, lanes, width) -> str:
    return disj(f"(and (bvule {bv(lo, width)} {lane}) (bvule {lane} {bv(hi, width)}))" if lo != hi
                else f"(= {lane} {bv(lo, width)})" for lo, hi in _ranges(tuple(sorted(lanes))))


def domain(lane, i, lanes, n, width) -> str:
    return conj([member(lane, lanes, width), f"(bvsge {i} {bv(0, width)})", f"(bvslt {i} {bv(n, width)})"])


_PREFIX = itertools.count()
_AT = " l i)"


class Symbolic:
    """A layout's formulas as SMT-LIB macros over a (lane, i), defined once per process and
    applied at any point: a second point (injectivity), a moved lane (relations) or a register's
    first element (chunk) is a second application, not a second translation."""

    def __init__(self, layout, width):
        self.width = width
        self.prefix = f"L{next(_PREFIX)}"
        bits = f"(_ BitVec {width})"
        params = f"((l {bits}) (i {bits}))"

        def macro(name, sort, body):
            sym = f"|{self.prefix}.{name}|"
            define(sym, f"(define-fun {sym} {params} {sort} {body})")
            return f"({sym}{_AT}"

        terms = Terms(width, {"lane": "l", "i": "i"})
        for name, expr in layout.definitions:
            terms.env[name] = macro(f"let.{name}", bits, terms.term(expr))
        # a sparse layout's Where block (firstcol, lastcol): pieces, and the first applying one's value
        self.bound = {}
        for formula in layout.bound:
            self.bound[formula.target] = formula_terms(formula, terms, macro)
            terms.env[formula.target] = macro(formula.target, bits, first(self.bound[formula.target], width))
        self.named = {name: terms.env[name] for name in self.bound}
        self.rows = formula_terms(layout.row, terms, macro)
        self.cols = formula_terms(layout.col, terms, macro)
        self.row = macro("row", bits, first(self.rows, width))
        self.col = macro("col", bits, first(self.cols, width))
        self.has = macro("has", "Bool", conj(disj(g for g, _, _ in ps) for ps in self.all_pieces()))
        self.column_range = layout.column_range

    def all_pieces(self) -> list:
        return [self.rows, self.cols, *self.bound.values()]

    def at(self, lane, i) -> "Point":
        return Point(self, str(lane), str(i))


class Point:
    """A layout's terms at one (lane, i), each a macro application; the pieces are made only when
    asked for (the computations theorem applies a layout at 128 points and reads row and col)."""

    def __init__(self, sym: Symbolic, lane: str, i: str):
        self.sym, self.l, self.i = sym, lane, i
        self._tail = f" {lane} {i})"
        self.row, self.col, self.has = (self._ap(t) for t in (sym.row, sym.col, sym.has))

    def _ap(self, call: str) -> str:
        return call[:-len(_AT)] + self._tail

    def _pieces(self, pieces) -> list:
        return [tuple(map(self._ap, piece)) for piece in pieces]

    @property
    def rows(self) -> list:
        return self._pieces(self.sym.rows)

    @property
    def cols(self) -> list:
        return self._pieces(self.sym.cols)

    @property
    def named(self) -> dict:
        return {k: self._ap(v) for k, v in self.sym.named.items()}

    def all_pieces(self) -> list:
        return [self._pieces(ps) for ps in self.sym.all_pieces()]


_SYMBOLIC: dict = {}


def symbolic(layout, width: int) -> Symbolic:
    """One translation per (layout, width) for the whole run: theorems ask about the same
    fragments many times. The layout is kept with its macros, so a recycled id cannot match."""
    key = (id(layout), width)
    hit = _SYMBOLIC.get(key)
    if hit is not None and hit[0] is layout:
        return hit[1]
    sym = Symbolic(layout, width)
    _SYMBOLIC[key] = (layout, sym)
    return sym


def signed(v: int, width: int) -> int:
    return v - (1 << width) if v >= 1 << (width - 1) else v
