"""z3 side of the computation theorem of instructions that run several MMAs per warp: every
A row (B column) the C/D elements of a computation need is held by that computation's lanes.

The operand's points inside the computation are few (8 lanes x 4 elements for m8n8k4), so its
image is the operand's layout applied at each constant point, which z3 folds to constants, and
the query "some needed cell is none of them" stays quantifier-free.
"""
from __future__ import annotations

import time

from checker.smt.symbolic import Answer, member, symbolic
from checker.smt.solver import Session, Var, bv
from checker.smt.terms import conj, disj
from checker.results import PROVED, REFUTED, UNKNOWN


def needs(name, operand, held, held_width, held_n, acc, acc_width, acc_n, groups, k_dim, dump_dir=None,
          expect=None) -> Answer:
    """`held` and `acc` are layouts; `groups` the lanes of each computation. Is there a C/D point
    (lane, i) and a k < K whose A cell (row, k) -- or B cell (k, col) -- no point of `held` in the
    same computation holds? One query for all computations. `expect`: the plain-Python engine's
    (verdict, witness), whose smallest point z3 confirms rather than searches for."""
    t0 = time.perf_counter()
    w = max(held_width, acc_width)
    lane, i, k = Var("lane", w), Var("i", w), Var("k", w)
    at = symbolic(acc, w).at(lane, i)
    image = symbolic(held, w)
    want = (at.row, str(k)) if operand == "A" else (str(k), at.col)
    missing = []
    for lanes in groups:
        cells = [image.at(bv(lane_, w), bv(e, w)) for lane_ in lanes for e in range(held_n)]
        missing.append(conj([member(lane, lanes, w)] +
                            [f"(or (distinct {c.row} {want[0]}) (distinct {c.col} {want[1]}))" for c in cells]))
    s = Session(name, dump_dir)
    s.add(f"(bvsge {lane} {bv(0, w)})", f"(bvslt {lane} {bv(32, w)})", f"(bvsge {i} {bv(0, w)})",
          f"(bvslt {i} {bv(acc_n, w)})", f"(bvsge {k} {bv(0, w)})", f"(bvslt {k} {bv(k_dim, w)})")
    hint = None
    if expect is not None and expect[0] == REFUTED and all(x in (expect[1] or {}) for x in ("lane", "i", "k")):
        hint = (expect[1]["lane"], expect[1]["i"], expect[1]["k"])
    out = s.minimize("needs", [lane, i, k], disj(missing), values=want, expect=hint)
    if out.status == "unsat":
        ans = Answer(PROVED, queries=["needs"])
    elif out.status == "sat":
        m = out.model
        ans = Answer(REFUTED, {"lane": m[str(lane)], "i": m[str(i)], "k": m[str(k)],
                                 "cell": [m[want[0]], m[want[1]]]}, queries=["needs"])
    else:
        ans = Answer(UNKNOWN, reason=out.reason or "z3 answered unknown", queries=["needs"])
    ans.seconds = time.perf_counter() - t0
    return ans
