"""Runs a cell equation with both engines and turns the answer into a Result."""
from __future__ import annotations

import time

from checker.errors import CheckerError
from checker.results import PROVED, REFUTED, UNKNOWN, Result
from checker.smt import equation as smt_equation
from checker.theorems import equation as py_equation


class Disagreement(CheckerError):
    pass


def decide(eq, opts):
    """(verdict, witness, seconds) where verdict is proved | refuted | unknown; both engines."""
    t0 = time.perf_counter()
    py = py_equation.evaluate(eq) if opts.cross_check else None
    answer = smt_equation.prove(eq, py_equation.width(eq), opts.dump_smt, expect=py)
    if py is not None and answer.verdict != UNKNOWN and (answer.verdict, answer.witness) != py:
        raise Disagreement(f"{eq.id}: z3 says {answer.verdict} {answer.witness}, enumeration says {py[0]} {py[1]}")
    return answer.verdict, answer.witness, time.perf_counter() - t0, answer.reason


UNPINNED = object()  # a refutation whose point no one declares (the packing theorems' split)


def pinned(witness, point) -> str | None:
    """Why a declared refutation does not count, or None: it names no witness, or another point.
    A theorem declared refuted stayed refuted under almost any edit of its sides (a `right.element`
    changed, a lane moved): the smallest point it fails at says that it still fails for its reason."""
    if witness is UNPINNED or witness == point:
        return None
    shown = "{" + ", ".join(f"{k}: {v}" for k, v in point.items()) + "}" if isinstance(point, dict) else str(list(point))
    if witness is None:
        return (f"refuted, as declared, but it names no witness: give the smallest point it is refuted at, "
                f"witness: {shown}, so that an edit that moves the refutation is seen")
    return f"refuted, as declared, but at {shown}, not at its witness: an edit moved where it fails (witness: {shown} if it is meant)"


def equation_result(eq, opts, spec_path, prop, subject, location, expect="holds", holds="", fails="",
                    witness=UNPINNED) -> Result:
    """`expect` refuted: the refutation is the theorem (a declared non-relation), not a failure,
    where it is refuted at `witness` (its point; UNPINNED: anywhere)."""
    w = py_equation.outside(eq)
    if w is not None:
        # never declared: a relation stated not to hold is about two layouts' cells; one that
        # reads past the end of a fragment says nothing about them (an edit dropped an element)
        message = py_equation.describe_outside(eq, w)
        return Result(spec_path, None, prop, REFUTED, 0.0, location, {**w, "message": message}, subject=subject,
                      message=f"cannot hold: {message}")
    try:
        verdict, w, seconds, reason = decide(eq, opts)
    except Disagreement as exc:
        return Result(spec_path, None, prop, UNKNOWN, 0.0, location, subject=subject,
                      message=f"the z3 and plain-Python engines disagree, so neither is trusted: {exc}")
    cex = None
    if w is not None:
        cex = {"point": w["point"], "left": w["left"], "right": w["right"],
               "message": py_equation.describe(eq, w)}
    if verdict == UNKNOWN:
        return Result(spec_path, None, prop, UNKNOWN, seconds, location, subject=subject,
                      message=f"z3 could not decide {subject}: {reason}")
    if verdict == PROVED:
        ok = expect == "holds"
        msg = holds if ok else f"expected to be refuted, but it holds: {holds}"
        return Result(spec_path, None, prop, PROVED if ok else REFUTED, seconds, location, None,
                      subject=subject, message=msg)
    if expect == "refuted":
        moved = pinned(witness, cex["point"])
        if moved is not None:
            return Result(spec_path, None, prop, REFUTED, seconds, location, cex, subject=subject,
                          message=f"{moved} ({cex['message']})")
        return Result(spec_path, None, prop, REFUTED, seconds, location, cex, subject=subject, declared=True,
                      message=f"{fails} ({cex['message']})" if fails else cex["message"])
    return Result(spec_path, None, prop, REFUTED, seconds, location, cex, subject=subject,
                  message=f"{fails or 'does not hold'}: {cex['message']}")


def differs(r: Result) -> bool:
    """A refutation whose counterexample is two cells that differ, which relations.locate traces
    to the formula pieces that give them; one that reads outside a fragment has no cells."""
    return r.verdict == REFUTED and not r.declared and bool(r.counterexample) and "left" in r.counterexample
