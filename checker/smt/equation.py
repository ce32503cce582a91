"""A cell equation (checker.theorems.equation) as one quantifier-free z3 query: is there a lane
and a choice of the variables where the two sides give different cells? The smallest such point
is found lexicographically, the way the plain-Python engine finds it."""
from __future__ import annotations

import time

from checker.smt.symbolic import Answer, member, signed, symbolic
from checker.smt.solver import Session, Var
from checker.smt.terms import Terms, conj
from checker.results import PROVED, REFUTED, UNKNOWN


def _side(side, env, w):
    """The side's fragment is applied at the side's own (lane, i) terms: its macros are defined
    once per run and shared by every equation that names it."""
    base = Terms(w, dict(env))
    lane = base.term(side.lane) if side.lane is not None else env["lane"]
    elem = base.term(side.element)
    at = symbolic(side.reading.layout, w).at(lane, elem)
    after = Terms(w, dict(env, row=at.row, col=at.col))
    out_r = after.term(side.row) if side.row is not None else at.row
    out_c = after.term(side.col) if side.col is not None else at.col
    return lane, elem, out_r, out_c


def prove(eq, width: int, dump_dir=None, expect=None) -> Answer:
    """`expect`: the plain-Python engine's (verdict, witness), whose smallest point z3 confirms
    rather than searches for (solver.Session.minimize)."""
    t0 = time.perf_counter()
    w = width
    lane = Var("lane", w)
    env = {"lane": str(lane)}
    variables = [lane]
    domain = [member(lane, eq.lanes, w)]
    for name, vals in eq.variables:
        v = Var(f"eq.{name}", w)
        env[name] = str(v)
        variables.append(v)
        domain.append(member(v, vals, w))
    left = _side(eq.left, env, w)
    right = _side(eq.right, env, w)
    names = ["lane"] + [v for v, _ in eq.variables]
    hint = None
    if expect is not None and expect[0] == REFUTED:
        point = (expect[1] or {}).get("point", {})
        hint = tuple(point[n] for n in names) if all(n in point for n in names) else None
    session = Session(f"relation.{eq.id}", dump_dir)
    session.add(conj(domain))
    out = session.minimize("differ", variables, f"(or (distinct {left[2]} {right[2]}) (distinct {left[3]} {right[3]}))",
                           values=left + right, expect=hint)
    answer = Answer(UNKNOWN, reason=out.reason or "z3 answered unknown", queries=["differ"])
    if out.status == "unsat":
        answer = Answer(PROVED, queries=["differ"])
    elif out.status == "sat":
        val = lambda t: signed(out.model[str(t)], w)  # noqa: E731
        answer = Answer(REFUTED, {
            "point": {n: val(v) for n, v in zip(names, variables)},
            "left": {"lane": val(left[0]), "i": val(left[1]), "cell": [val(left[2]), val(left[3])]},
            "right": {"lane": val(right[0]), "i": val(right[1]), "cell": [val(right[2]), val(right[3])]}},
            queries=["differ"])
    answer.seconds = time.perf_counter() - t0
    return answer
