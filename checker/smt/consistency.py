"""z3 side of the computation theorem of instructions that run several MMAs per warp: every
A row (B column) the C/D elements of a computation need is held by that computation's lanes.

The operand's points inside the computation are few (8 lanes x 4 elements for m8n8k4), so its
image is computed by z3 itself (substitution, then simplification to constants) and the query
"some needed cell is none of them" stays quantifier-free.
"""
from __future__ import annotations

import time

import z3

from checker.smt.properties import Answer, _member, symbolic
from checker.smt.solver import Session


_IMAGES: dict = {}


def _image(layout, width, lanes, n):
    """The cells of `layout` over `lanes`, as z3 constants; shared by every accumulator asked."""
    key = (id(layout), width, tuple(lanes), n)
    if key in _IMAGES and _IMAGES[key][0] is layout:
        return _IMAGES[key][1]
    sym = symbolic(layout, width, "_img")
    cells = []
    for lane in lanes:
        for i in range(n):
            pairs = [(sym.l, z3.BitVecVal(lane, width)), (sym.i, z3.BitVecVal(i, width))]
            cells.append((z3.simplify(z3.substitute(sym.row, *pairs)), z3.simplify(z3.substitute(sym.col, *pairs))))
    _IMAGES[key] = (layout, cells)
    return cells


def needs(name, operand, held, held_width, held_n, acc, acc_width, acc_n, groups, k_dim, dump_dir=None) -> Answer:
    """`held` and `acc` are layouts; `groups` the lanes of each computation. Is there a C/D point
    (lane, i) and a k < K whose A cell (row, k) -- or B cell (k, col) -- no point of `held` in the
    same computation holds? One query for all computations."""
    t0 = time.perf_counter()
    w = max(held_width, acc_width)
    sym = symbolic(acc, w, "_acc")
    k = z3.BitVec("k", w)
    want = (sym.row, k) if operand == "A" else (k, sym.col)
    missing = z3.Or([z3.And(_member(sym.l, lanes),
                            z3.And([z3.Or(r != want[0], c != want[1]) for r, c in _image(held, w, lanes, held_n)]))
                     for lanes in groups])
    s = Session(name, dump_dir)
    s.add(sym.l >= 0, sym.l < 32, sym.i >= 0, sym.i < acc_n, k >= 0, k < k_dim)
    out = s.minimize("needs", [sym.l, sym.i, k], missing)
    if out.status == "unsat":
        ans = Answer("proved", queries=["needs"])
    elif out.status == "sat":
        m = out.model
        v = lambda t: m.eval(t, model_completion=True).as_long()  # noqa: E731
        cell = [v(want[0]), v(want[1])]
        ans = Answer("refuted", {"lane": v(sym.l), "i": v(sym.i), "k": v(k), "cell": cell}, queries=["needs"])
    else:
        ans = Answer("unknown", reason=out.reason or "z3 answered unknown", queries=["needs"])
    ans.seconds = time.perf_counter() - t0
    return ans
