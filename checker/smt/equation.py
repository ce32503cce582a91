"""A cell equation (checker.theorems.equation) as one quantifier-free z3 query: is there a lane
and a choice of the variables where the two sides give different cells? The smallest such point
is found lexicographically, the way the plain-Python engine finds it."""
from __future__ import annotations

import time

import z3

from checker.smt.properties import Answer, _ranges, _signed, symbolic
from checker.smt.solver import Session
from checker.smt.terms import Terms


def _member(var, vals, w):
    return z3.Or([z3.And(z3.ULE(z3.BitVecVal(lo, w), var), z3.ULE(var, z3.BitVecVal(hi, w))) if lo != hi
                  else var == z3.BitVecVal(lo, w) for lo, hi in _ranges(tuple(sorted(vals)))])


def _side(side, env, w, tag):
    """The side's fragment is looked up by constraining its own (lane, i) variables rather than
    substituting into its terms: the terms are translated once per run and shared."""
    base = Terms(w, dict(env))
    lane = base.term(side.lane) if side.lane is not None else env["lane"]
    elem = base.term(side.element)
    sym = symbolic(side.reading.layout, w, tag)
    after = Terms(w, dict(env, row=sym.row, col=sym.col))
    out_r = after.term(side.row) if side.row is not None else sym.row
    out_c = after.term(side.col) if side.col is not None else sym.col
    return (sym.l == lane, sym.i == elem), lane, elem, out_r, out_c


def prove(eq, width: int, dump_dir=None) -> Answer:
    t0 = time.perf_counter()
    w = width
    lane = z3.BitVec("lane", w)
    env = {"lane": lane}
    variables = [lane]
    domain = [_member(lane, eq.lanes, w)]
    for name, vals in eq.variables:
        v = z3.BitVec(name, w)
        env[name] = v
        variables.append(v)
        domain.append(_member(v, vals, w))
    links_l, *left = _side(eq.left, env, w, "_l")
    links_r, *right = _side(eq.right, env, w, "_r")
    session = Session(f"relation.{eq.id}", dump_dir)
    session.add(*domain, *links_l, *links_r)
    out = session.minimize("differ", variables, z3.Or(left[2] != right[2], left[3] != right[3]))
    answer = Answer("unknown", reason=out.reason or "z3 answered unknown", queries=["differ"])
    if out.status == "unsat":
        answer = Answer("proved", queries=["differ"])
    elif out.status == "sat":
        m = out.model
        val = lambda t: _signed(m.eval(t, model_completion=True).as_long(), w)  # noqa: E731
        names = ["lane"] + [v for v, _ in eq.variables]
        answer = Answer("refuted", {
            "point": {n: val(v) for n, v in zip(names, variables)},
            "left": {"lane": val(left[0]), "i": val(left[1]), "cell": [val(left[2]), val(left[3])]},
            "right": {"lane": val(right[0]), "i": val(right[1]), "cell": [val(right[2]), val(right[3])]}},
            queries=["differ"])
    answer.seconds = time.perf_counter() - t0
    return answer
