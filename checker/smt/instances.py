"""The z3 side of deciding a parametric fragment's instances together
(checker/properties/instances.py): one query settles defined, in-range and injective over the
largest domain, one more in-range at every instance with its own bound, and covers follows by
counting. Any answer but unsat returns None: the instances are then proved one by one."""
from __future__ import annotations

import time

from checker.smt.properties import FragmentProver
from checker.smt.symbolic import Answer, symbolic
from checker.smt.terms import disj
from checker.results import PROVED


_HOLDS: dict = {}  # every point property over the largest domain, by formula text and domain


def prove_every_n(name: str, readings: list, props, dump_dir=None) -> dict | None:
    """{(n, cols): {property: Answer}} for every instance, or None."""
    t0 = time.perf_counter()
    top = readings[-1]
    f = top.fragment
    lanes = tuple(range(f.threads.count))
    width = max(r.width for r in readings)
    q = FragmentProver(f"{name}.every-instance", symbolic(top.layout, width), lanes, top.n, f.rows, f.cols,
                       props, dump_dir)
    layout = top.layout  # its lowered formulas, not their text (a mutant is a changed tree under one text)
    k = (layout.definitions, layout.row, layout.col, layout.bound, f.letter, f.threads, f.rows, top.n, f.cols, width)
    if k not in _HOLDS:
        _HOLDS[k] = q.all_hold()
    if not _HOLDS[k]:
        return None
    zero, p = q.bv(0), q.p
    rows_out = f"(bvslt {p.row} {zero}) (bvsge {p.row} {q.bv(f.rows)}) (bvslt {p.col} {zero})"
    outside = disj(f"(and (bvslt {q.i} {q.bv(r.n)}) (or {rows_out} (bvsge {p.col} {q.bv(r.fragment.cols)})))"
                   for r in readings)
    if q.check("in-range.every-instance", outside).status != "unsat":
        return None
    if any(len(lanes) * r.n != f.rows * r.fragment.cols for r in readings):
        return None
    share = (time.perf_counter() - t0) / (len(readings) * len(props))
    values = ", ".join(str(v) for _, v in (r.fragment.params[0] for r in readings))
    param = f.params[0][0]
    out = {}
    for r in readings:
        why = (f"proved for every {param} ({values}) at once: one map, each instance's domain a part of "
               f"the largest one's, in range with each {param}'s bound")
        answers = {p.name: Answer(PROVED, reason=why, queries=["all", "in-range.every-instance"], seconds=share)
                   for p in props if p.name != "covers"}
        answers["covers"] = Answer(PROVED, reason=f"pigeonhole: {len(lanes) * r.n} points map injectively and "
                                                    f"totally into {f.rows}x{r.fragment.cols} cells", seconds=share)
        out[(r.n, r.fragment.cols)] = {p.name: answers[p.name] for p in props}
    return out
