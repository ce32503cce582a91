"""The second engine: every property decided by enumerating the whole domain in plain Python.

It finds the lexicographically smallest witness, as the z3 engine does, so the two can be
compared point for point, not just on their verdicts.
"""
from __future__ import annotations

from checker.formula.evaluate import environment, formula_hits
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
    tab = table(layout, lanes, n)
    points = sorted(tab)
    answers = {}

    bad = next((p for p in points
                if any(len(h) != 1 for h in tab[p])
                or not all(ok for h in tab[p] for _, _, ok in h)), None)
    answers["defined"] = _point(bad)

    def outside(p):
        r, c = tab[p][:2]
        return any(not 0 <= v < rows for _, v, _ in r) or any(not 0 <= v < cols for _, v, _ in c)

    answers["in-range"] = _point(next((p for p in points if outside(p)), None))

    holders = image(tab)
    clashes = [(h[0], h[1], cell) for cell, h in holders.items() if len(h) > 1]
    if clashes:
        p1, p2, cell = min(clashes)
        answers["injective"] = ("refuted", {"lane": p1[0], "i": p1[1], "lane2": p2[0], "i2": p2[1],
                                            "cell": list(cell)})
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
