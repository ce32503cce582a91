"""The second engine: evaluates the AST in plain Python (never eval/exec), with the integer
semantics the z3 translation must match: floor division and modulo, arithmetic shifts.

Every node is evaluated over a whole list of points at once, so enumerating a 4096-point
domain costs a few list comprehensions per node instead of a tree walk per point.
"""
from __future__ import annotations

import operator
from itertools import chain, repeat

from checker.formula import ast

_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.floordiv,
          "%": operator.mod, "<<": operator.lshift, ">>": operator.rshift, "&": operator.and_,
          "|": operator.or_, "^": operator.xor}
_CMP = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
        "=": operator.eq, "==": operator.eq, "!=": operator.ne}


def values(node, env: dict, size: int) -> list:
    """env maps 'lane', 'i' and every defined name to a list of `size` values."""
    if isinstance(node, ast.Num):
        return [node.value] * size
    if isinstance(node, ast.Lane):
        return env["lane"]
    if isinstance(node, ast.Var):
        return env[node.name]
    if isinstance(node, ast.Unary):
        arg = values(node.arg, env, size)
        return [-v for v in arg] if node.op == "-" else [not v for v in arg]
    if isinstance(node, ast.Bin):
        a, b = values(node.left, env, size), values(node.right, env, size)
        if node.op == "&&":
            return [x and y for x, y in zip(a, b)]
        if node.op == "||":
            return [x or y for x, y in zip(a, b)]
        return list(map(_ARITH[node.op], a, b))
    if isinstance(node, ast.Chain):
        out = None  # each link's truths, and-ed: the first link's are the chain's so far
        left = values(node.operands[0], env, size)
        for op, rhs in zip(node.ops, node.operands[1:]):
            if isinstance(rhs, ast.SetLit):
                members = set(rhs.values)
                got = [x in members for x in left]
            else:
                right = values(rhs, env, size)
                got = list(map(_CMP[op], left, right))
                left = right
            out = got if out is None else [o and t for o, t in zip(out, got)]
        return out
    raise TypeError(f"unknown node {type(node).__name__}")  # pragma: no cover


def environment(layout, points: list) -> dict:
    return columns_environment(layout, [p[0] for p in points], [p[1] for p in points])


def columns_environment(layout, lanes: list, elems: list) -> dict:
    """environment() of the points (lanes[k], elems[k])."""
    env = {"lane": lanes, "i": elems}
    for name, expr in layout.definitions:
        env[name] = values(expr, env, len(lanes))
    for formula in layout.bound:  # firstcol, lastcol: the first applying piece, as the z3 map takes it
        env[formula.target] = first_values(formula, env, len(lanes))
    return env


def first_values(formula, env: dict, size: int, missing=-1) -> list:
    """Per point, the value of the first piece that applies, or `missing` where none does."""
    out = None
    for _, guard, vals, _ in piece_columns(formula, env, size, requires=False):
        if out is None:
            out = [v if g else None for g, v in zip(guard, vals)]
        else:
            out = [v if o is None and g else o for o, g, v in zip(out, guard, vals)]
    if out is None:
        return [missing] * size
    return out if missing is None else [missing if o is None else o for o in out]


def piece_columns(formula, env: dict, size: int, requires: bool = True):
    """(piece index, guard, value, its local definitions are defined here) as columns over the
    points, for each piece whose guard holds somewhere. The last column is None where the piece
    requires nothing (always defined), or where `requires` is False (not asked for)."""
    local = dict(env)
    for name, expr in formula.locals:
        local[name] = values(expr, local, size)
    for k, piece in enumerate(formula.pieces):
        guard = values(piece.guard, local, size)
        if not any(guard):
            continue
        oks = None
        if requires:
            for r in piece.requires:
                got = values(r, local, size)
                oks = got if oks is None else [o and x for o, x in zip(oks, got)]
        yield k, guard, values(piece.value, local, size), oks


def formula_hits(formula, env: dict, size: int) -> list:
    """Per point: [(piece index, value, its local definitions are defined here)]."""
    hits: list = [[] for _ in range(size)]
    for k, guard, vals, oks in piece_columns(formula, env, size):
        for p in range(size):
            if guard[p]:
                hits[p].append((k, vals[p], True if oks is None else oks[p]))
    return hits


def cells(layout, points: list, missing=-1) -> tuple:
    """(rows, cols) at every point, each the first applying piece's value or `missing` where none
    applies: the map the z3 translation takes (smt.terms.first). A figure asks for None, which no
    value can be: a layout as printed may reach -1."""
    return _cells(layout, environment(layout, points), len(points), missing)


def _cells(layout, env: dict, size: int, missing=-1) -> tuple:
    return first_values(layout.row, env, size, missing), first_values(layout.col, env, size, missing)


def product_columns(domains) -> list:
    """The columns of itertools.product(*domains), the first domain slowest, made without its
    tuples: a warpgroup's table or equation has 16384 points, and the engine reads columns."""
    domains = [tuple(d) for d in domains]
    size = 1
    for d in domains:
        size *= len(d)
    out, inner, outer = [], size, 1
    for d in domains:
        inner //= len(d) or 1
        out.append(list(chain.from_iterable(repeat(v, inner) for v in d)) * outer if size else [])
        outer *= len(d)
    return out


def _warp_cells(layout, n: int, threads: int) -> tuple:
    """cells() at (lane, i) for every lane and element, lane slowest."""
    lanes, elems = product_columns((range(threads), range(n)))
    return _cells(layout, columns_environment(layout, lanes, elems), threads * n)


_TABLES: dict = {}


def warp_table(layout, n: int, threads: int = 32) -> tuple:
    """cells() at every point of the warp (or warpgroup: `threads`), (lane, i) at index lane * n + i.
    A warpgroup's table (128 threads x up to 128 elements) is kept, by the lowered formulas'
    value: the wgmma theorems ask about one D formula, on both sides of several equations, in four
    specs."""
    if threads * n < 4096:
        return _warp_cells(layout, n, threads)
    key = (layout.definitions, layout.row, layout.col, layout.bound, n, threads)
    hit = _TABLES.get(key)
    if hit is None:
        if len(_TABLES) >= 64:
            _TABLES.clear()  # a mutation campaign makes many layouts: stay bounded
        hit = _TABLES[key] = _warp_cells(layout, n, threads)
    return hit


def warp_cells(layout, n: int, lanes: list, elems: list, threads: int = 32) -> tuple:
    """cells() at the points (lanes[k], elems[k]), each in 0..threads-1 x 0..n-1, looked up in
    the table of all its threads."""
    rows, cols = warp_table(layout, n, threads)
    idx = [lane * n + i for lane, i in zip(lanes, elems)]
    return [rows[k] for k in idx], [cols[k] for k in idx]


def at(layout, lane: int, i: int) -> tuple:
    """(row hits, col hits) at one point, for `checker eval` and messages."""
    env = environment(layout, [(lane, i)])
    return formula_hits(layout.row, env, 1)[0], formula_hits(layout.col, env, 1)[0]


def bound_at(layout, lane: int, i: int) -> list:
    """[(name, hits)] of the Where block's formulas at one point (sparse layouts)."""
    env = environment(layout, [(lane, i)])
    return [(f.target, formula_hits(f, env, 1)[0]) for f in layout.bound]
