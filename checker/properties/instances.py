"""A parametric fragment's instances decided together: wgmma's D at every N.

The instances of one fragment of a parametric shape (`D.float[N=8]` .. `D.float[N=256]`) are
the same formula block over growing domains: threads x [0, n_N) into rows x N cells. Where the
formula does not use the parameter, the layouts are one map, and the domain of every instance is
a part of the largest one's. So each engine decides the family once:

  defined, injective   hold at every N if they hold at the largest (a part of a total,
                       injective map is total and injective);
  in-range             asked once for every N: no point of instance N's domain lands outside
                       rows x N (each engine over the largest domain, with each N's bound);
  covers               by counting at each N, given the three: threads x n_N points mapped
                       injectively into rows x N cells with threads x n_N = rows x N (pigeonhole).

Anything else -- a violation anywhere, a formula that uses the parameter, a property this
argument does not cover, a reverted erratum -- returns None and each instance is proved on its
own, as any fragment is, so a refutation's witness is exactly the per-instance one. The
plain-Python engine's answers are left in `enumerate.KNOWN` for decide_reading; the z3 engine's
(checker/smt/instances.py) are what the prover compares them with. Each engine's analysis of the
largest domain is kept per formula text, so specs that share one D formula share it."""
from __future__ import annotations

import itertools

from checker.results import PROVED

SHARED = frozenset({"defined", "in-range", "injective", "covers"})

_FAMILIES: dict = {}  # (spec path, fragment span) -> (readings by instance, z3 answers or None)


def family(spec, fragment) -> list | None:
    """Every instance's reading, largest domain last, where they are one map over nested
    domains; None where they are not (or there is one instance)."""
    from checker.spec.reading import materialize  # here: the property registry imports this module

    mine = [f for f in spec.fragments() if f.span == fragment.span and f.params]
    if len(mine) < 2 or fragment.computations or fragment.sparsity is not None or fragment.lanes is not None:
        return None
    try:
        readings = sorted((materialize(f) for f in mine), key=lambda r: (r.n, r.fragment.cols))
    except Exception:  # noqa: BLE001 - an instance that does not read is reported on its own
        return None
    top = readings[-1]
    if top.layout is None or any(r.layout != top.layout or r.fragment.rows != top.fragment.rows
                                 or r.fragment.threads != top.fragment.threads for r in readings):
        return None  # the formula uses the parameter, or the instances differ otherwise
    if any(b.n < a.n or b.fragment.cols < a.fragment.cols for a, b in zip(readings, readings[1:])):
        return None
    return readings


def decide_family(spec, reading, props, prove_z3) -> dict | None:
    """The z3 answers for `reading`'s instance ({property: Answer}), its family decided once
    per process by both engines; None where each instance is to be proved on its own.
    `prove_z3(readings, props)`: the z3 engine's answers per instance n, or None."""
    f = reading.fragment
    if reading.reverted is not None or not f.params or {p.name for p in props} != SHARED:
        return None
    key = (spec.path, f.span)
    if key not in _FAMILIES:
        readings = family(spec, f)
        answers = None
        if readings is not None and (py := _enumerate(readings)) is not None:
            answers = prove_z3(readings, props)
            if answers is not None:
                from checker.properties.enumerate import KNOWN

                if len(KNOWN) > 4096:
                    KNOWN.clear()  # stay bounded over many runs in one process
                for r in readings:  # by fragment (a fragment is read again for each task), and its map
                    KNOWN[id(r.fragment)] = (r.fragment, tuple(range(r.fragment.threads.count)), py, r.layout)
        _FAMILIES[key] = (readings, answers)
    readings, answers = _FAMILIES[key]
    if answers is None or not any(r.fragment is f for r in readings):
        return None
    return answers[(reading.n, f.cols)]


_ANALYSED: dict = {}  # the largest domain's analysis, by what determines it (see _analyse)


def key(top) -> tuple:
    """What decides an analysis of the largest domain: the lowered formulas (errata applied), and who
    holds it into which matrix. Four specs with one D formula share it."""
    f = top.fragment
    layout = top.layout  # its lowered formulas, not their text (a mutant is a changed tree under one text)
    return layout.definitions, layout.row, layout.col, layout.bound, f.letter, f.threads, f.rows, top.n, f.cols


def _analyse(top):
    """{lane: the running largest column + 1 over its elements}, where every point of the largest
    domain is defined and no two hold one cell; None otherwise."""
    from checker.properties.enumerate import Evaluation

    f = top.fragment
    lanes = tuple(range(f.threads.count))
    ev = Evaluation(top.layout, lanes, top.n, f.rows, f.cols, top)
    if ev.first_flagged(ev.undefined) is not None or ev.holders[1] is not None:
        return None
    # defined: exactly one piece applies at every point, so `firsts` is the cell each one holds
    far = 1 << 30
    need = [far if r is None or c is None or not 0 <= r < f.rows or c < 0 else c + 1
            for r, c in zip(*ev.firsts)]
    n = top.n
    return {lane: list(itertools.accumulate(need[k * n:(k + 1) * n], max)) for k, lane in enumerate(lanes)}


def _enumerate(readings) -> dict | None:
    """The plain-Python engine over the largest domain: every property at every instance, or
    None where anything fails there (each instance then enumerates on its own)."""
    top = readings[-1]
    k = key(top)
    if k not in _ANALYSED:
        _ANALYSED[k] = _analyse(top)
    need = _ANALYSED[k]
    if need is None:
        return None
    lanes = tuple(need)
    for r in readings:
        n, width = r.n, r.fragment.cols
        if any(need[lane][n - 1] > width for lane in lanes):
            return None  # out of range at some N: that instance finds its own witness
        if len(lanes) * n != top.fragment.rows * width:
            return None  # not a bijection by counting: covers is asked per instance
    return {p: (PROVED, None) for p in SHARED}
