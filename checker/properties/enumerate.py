"""The second engine: every property decided by enumerating the whole domain in plain Python.

It finds the lexicographically smallest witness, as the z3 engine does, so the two can be
compared point for point, not just on their verdicts.
"""
from __future__ import annotations

import operator

from checker.formula.evaluate import environment, formula_hits, piece_columns
from checker.properties import chunk


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


def decide(layout, lanes, n, rows, cols) -> dict:
    """Every property at once, column by column: each formula's pieces are evaluated over all
    points together, and each property's smallest witness is the first point its column flags.
    Points are in (lane, i) order, so first is lexicographically smallest, as z3 finds it."""
    points = sorted((lane, i) for lane in lanes for i in range(n))
    size = len(points)
    env = environment(layout, points)
    index = range(size)
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
    answers = {"defined": _point(next((points[p] for p in index if undefined[p]), None)),
               "in-range": _point(next((points[p] for p in index if outside[p]), None))}
    holders: dict = {}
    clash = None
    for p, cell in enumerate(zip(firsts[0], firsts[1])):
        if not held[p]:
            continue
        if cell in holders:
            if clash is None or holders[cell] < clash[0]:
                clash = (holders[cell], p, cell)
        else:
            holders[cell] = p
    if clash:
        (l1, i1), (l2, i2) = points[clash[0]], points[clash[1]]
        answers["injective"] = ("refuted", {"lane": l1, "i": i1, "lane2": l2, "i2": i2, "cell": list(clash[2])})
    else:
        answers["injective"] = ("proved", None)
    hole = smallest_hole(holders, rows, cols)
    answers["covers"] = ("refuted", {"cell": list(hole)}) if hole else ("proved", None)
    return answers


def decide_reading(reading, lanes) -> dict:
    """Every property of a reading the prover asks z3 about, decided by enumeration: the four of
    every fragment, and a sparse A's chunk property."""
    f = reading.fragment
    answers = decide(reading.layout, lanes, reading.n, f.rows, f.cols)
    sparse = chunk.sparse_ranges(reading)
    if sparse:
        answers["chunk"] = chunk.decide(reading.layout, lanes, reading.n, *sparse)
    return answers


def _point(p):
    return ("refuted", {"lane": p[0], "i": p[1]}) if p else ("proved", None)
