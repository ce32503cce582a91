"""The second engine: every property decided by enumerating the whole domain in plain Python.

It finds the lexicographically smallest witness, as the z3 engine does, so the two can be
compared point for point, not just on their verdicts.
"""
from __future__ import annotations

import operator
from functools import cached_property

from checker.formula.evaluate import columns_environment, environment, formula_hits, piece_columns, product_columns
from checker.properties import engine_properties
from checker.results import PROVED, REFUTED


def table(layout, lanes, n) -> dict:
    """(lane, i) -> (row hits, col hits, then the hits of a sparse layout's Where formulas); a hit
    is (piece index, value, local definitions ok)."""
    points = [(lane, i) for lane in lanes for i in range(n)]
    env = environment(layout, points)
    hits = [formula_hits(f, env, len(points)) for f in layout.formulas()]
    return {p: h for p, h in zip(points, zip(*hits))}


def image(tab: dict) -> dict:
    """cell -> the points holding it, in order (first applying piece, as the z3 map takes it)."""
    holders: dict = {}
    for p in sorted(tab):
        r, c = tab[p][:2]
        if all(tab[p]):
            holders.setdefault((r[0][1], c[0][1]), []).append(p)
    return holders


def smallest_hole(holders: dict, rows: int, cols: int):
    return next(((r, c) for r in range(rows) for c in range(cols) if (r, c) not in holders), None)


class Evaluation:
    """A layout evaluated over its whole domain, column by column: each formula's pieces over all
    points together. Points are in (lane, i) order, so the first point a column flags is the
    lexicographically smallest witness, as z3 finds it. Each property reads the columns it needs."""

    def __init__(self, layout, lanes, n, rows, cols, reading=None):
        self.layout, self.lanes, self.n, self.rows, self.cols = layout, tuple(lanes), n, rows, cols
        self.reading = reading
        size = len(self.lanes) * n
        env = columns_environment(layout, *product_columns((sorted(lanes), range(n))))  # (lane, i) order
        undefined, outside, held = [False] * size, [False] * size, [True] * size
        firsts = []
        for k, formula in enumerate(layout.formulas()):
            limit = (rows, cols)[k] if k < 2 else None  # row, col; a sparse A's firstcol/lastcol have no range here
            count, first = [0] * size, [None] * size
            for _, guard, vals, oks in piece_columns(formula, env, size):
                count = list(map(operator.add, count, map(bool, guard)))
                if oks is not None:
                    undefined = [u or (g and not o) for u, g, o in zip(undefined, guard, oks)]
                first = [v if g and f is None else f for f, g, v in zip(first, guard, vals)]
                if limit is not None:
                    outside = [x or (g and not 0 <= v < limit) for x, g, v in zip(outside, guard, vals)]
            undefined = [u or c != 1 for u, c in zip(undefined, count)]
            held = [h and c > 0 for h, c in zip(held, count)]
            firsts.append(first)
        self.undefined, self.outside, self.held, self.firsts = undefined, outside, held, firsts

    @cached_property
    def points(self) -> list:
        """(lane, i) at each index of the columns: read only where a witness is named."""
        return [(lane, i) for lane in sorted(self.lanes) for i in range(self.n)]

    def first_flagged(self, column):
        return next((self.points[p] for p, flag in enumerate(column) if flag), None)

    @cached_property
    def holders(self) -> tuple:
        """(cell -> its first holder's index, the smallest clash (first, second, cell) or None)."""
        holders: dict = {}
        clash = None
        for p, cell in enumerate(zip(self.firsts[0], self.firsts[1])):
            if not self.held[p]:
                continue
            if cell in holders:
                if clash is None or holders[cell] < clash[0]:
                    clash = (holders[cell], p, cell)
            else:
                holders[cell] = p
        return holders, clash


def decide(layout, lanes, n, rows, cols, reading=None) -> dict:
    """{property: (verdict, witness)} for every engine property that applies (all of them for a
    bare layout, as the export and the campaign ask)."""
    ev = Evaluation(layout, lanes, n, rows, cols, reading)
    out = {}
    for prop in engine_properties(reading):
        witness = prop.enumerate(ev)
        out[prop.name] = (PROVED, None) if witness is None else (REFUTED, witness)
    return out


# id(fragment) -> (fragment, lanes, {property: (verdict, witness)}, layout): instances decided with their family
KNOWN: dict = {}


def decide_reading(reading, lanes) -> dict:
    """Every property of a reading the prover asks the engines about, decided by enumeration
    (for an instance of a parametric fragment, with its family where that was decided at once:
    checker/properties/instances.py keeps those answers in KNOWN)."""
    hit = KNOWN.get(id(reading.fragment)) if reading.reverted is None else None
    # the same fragment with the same map (a mutant put in its place is asked on its own)
    if hit is not None and hit[0] is reading.fragment and tuple(lanes) == hit[1] and reading.layout == hit[3]:
        return dict(hit[2])
    f = reading.fragment
    return decide(reading.layout, lanes, reading.n, f.rows, f.cols, reading)
