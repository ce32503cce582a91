"""The theorem family of ldmatrix, stmatrix and movmatrix specs: how their layouts compose with
mma. Each composition of a spec (`compositions:`) places a layout's tile on a matrix (where the
lanes' row addresses put each row) and states that the result is a fragment, cell for cell:

    layout(lane', e) = (row, col) placed at (row_expr, col_expr)  ==  fragment(lane, i)

for every lane and every value of the `for` variables. It is the cell equation of
checker/theorems/equation.py, so both engines decide it and a refutation comes with the smallest
counterexample; `expect: refuted` states where a composition does not hold."""
from __future__ import annotations

import os
from types import SimpleNamespace

from checker import recording
from checker.errors import SpecError
from checker.formula.parser import parse_expr
from checker.loading import load, load_error
from checker import source
from checker.spec.reading import materialize
from checker.theorems.equation import Equation, Side, check_names, difference, divisors_nonzero, outside, unread
from checker.theorems.relations import placed
from checker.theorems.run import equation_result
from checker.results import REFUTED, Result
from checker.theorems.family import TheoremFamily

PROPERTY = "composition"


def _fragment(spec, ref: str, span, readings: dict):
    """The reading of shape/id: of this spec, or of the spec of that shape beside it."""
    shape, fid = ref.split("/", 1)
    if shape == spec.shape:
        if fid not in readings:
            raise SpecError(span, f"{shape} has no fragment {fid!r}")
        return readings[fid]
    path = os.path.join(os.path.dirname(spec.path), shape + ".yaml")
    other, errors = load(path) if recording.isfile(path) else (None, None)
    if other is None:
        raise SpecError(span, f"no spec {shape}.yaml beside {spec.path} loads, for {ref!r}")
    frag = other.fragment(fid)
    if frag is None:
        raise SpecError(span, f"{shape} has no fragment {fid!r}", f"it has {', '.join(f.id for f in other.fragments())}")
    return materialize(frag)


def equation(spec, c, readings: dict) -> Equation:
    def expr(field, default):
        src = c.src.get(field) or source.plain(default, c.span)
        return src, parse_expr(src)

    lay = readings.get(c.layout)
    if lay is None:
        raise SpecError(c.span, f"layout {c.layout} has no reading to compose")
    target = _fragment(spec, c.fragment, c.span, readings)
    fe_src, fe = expr("fragment_element", "i")
    left = Side(c.fragment, target, None, fe, None, None, {"element": fe_src})
    src, nodes = {}, {}
    for field in ("element", "lane", "row", "col"):
        if field in c.src or field == "element":
            src[field], nodes[field] = expr(field, "i")
    right = Side(f"{spec.shape}/{c.layout}", lay, nodes.get("lane"), nodes["element"], nodes.get("row"),
                 nodes.get("col"), src)
    variables = tuple((name, tuple(range(lo, hi + 1))) for name, lo, hi in c.variables)
    for side in (left, right):
        check_names({v for v, _ in variables}, side)
    eq = Equation(c.id, variables, tuple(range(32)), left, right, c.span)
    divisors_nonzero(eq)  # before `difference` or either engine evaluates a side
    return eq


def prove(spec, readings: dict, opts) -> list:
    out = []
    for c in spec.compositions:
        try:
            eq = equation(spec, c, readings)
            part = unread(eq, eq.right) if outside(eq) is None else None
            if part is not None:
                # every composition places its layout whole: a `for:` range cut short proves a part
                message = (f"cannot hold as stated: no point reads {eq.right.name} lane {part[0]} element {part[1]}; "
                           "a composition covers its layout whole (its for: ranges and element reach every "
                           "element of every lane)")
                out.append(Result(spec.path, None, PROPERTY, REFUTED, 0.0, str(c.reach or c.span),
                                  {"point": {"%laneid": part[0], "i": part[1]}, "message": message}, subject=c.id,
                                  message=message).but(detail={"rests_on": list(c.rests_on)}))
                continue
            fails = f"{c.statement.rstrip('.')}: refuted as declared; {difference(eq)}" if c.expect == "refuted" else ""
            r = equation_result(eq, opts, spec.path, PROPERTY, c.id, str(c.span), expect=c.expect,
                                holds=c.statement, fails=fails, witness=c.witness)
            # at the formula that gives the differing cell, as a relation is (the composition's
            # line a note); relations.blame moves it to the side the run's failures point at
            r = placed(spec.path, SimpleNamespace(equation=eq, span=c.span), r)
        except SpecError as exc:
            r = load_error(spec.path, exc).but(subject=c.id)
        out.append(r.but(detail={"rests_on": list(c.rests_on)}))
    return out


FAMILY = TheoremFamily("composition", 70, "A data-movement layout placed on an mma fragment is that fragment, "
                        "or is not, as declared", ("ldmatrix", "stmatrix", "movmatrix"),
                        lambda a: prove(a.spec, a.readings, a.opts))
