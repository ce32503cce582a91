"""computations: each MMA computation's lanes (m8n8k4 .f16's four) hold every row of A and column
of B its accumulator cells need. Derived from the fragments' proofs where they settle it, asked of
both engines where one failed (or where no fragment results are at hand: the mutation campaign)."""
from __future__ import annotations

from checker.formula.evaluate import warp_table
from checker.results import PROVED, REFUTED, UNKNOWN, Result
from checker.semantics.variants import variants
from checker.smt import consistency as smt_consistency
from checker.theorems.family import TheoremFamily


def _held(reading, lanes) -> set:
    """The cells the lanes hold."""
    rows, cols = warp_table(reading.layout, reading.n)
    n = reading.n
    return {(rows[k], cols[k]) for lane in lanes for k in range(lane * n, lane * n + n)}


def _needs_py(operand, held, acc, groups, k_dim):
    """The smallest (lane, i, k) whose needed cell its computation's lanes do not hold."""
    have = {}
    for lanes in groups:
        cells = _held(held, lanes)
        have.update({lane: cells for lane in lanes})
    rows, cols = warp_table(acc.layout, acc.n)
    for lane in sorted(have):
        for i in range(acc.n):
            row, col = rows[lane * acc.n + i], cols[lane * acc.n + i]
            for k in range(k_dim):
                want = (row, k) if operand == "A" else (k, col)
                if want not in have[lane]:
                    return REFUTED, {"lane": lane, "i": i, "k": k, "cell": list(want)}
    return PROVED, None


def computations(spec, readings, opts, fragment_results=None) -> list:
    """`readings`: fragment id -> Reading, read only for the pairs asked of the engines.
    `fragment_results`: the fragments' proofs, where they are known; a pair they settle is
    derived from them (_derived), not asked again."""
    out, seen = [], set()
    for v in variants(spec):
        if not v.a.computations:
            continue
        for held, acc in ((v.a, v.c), (v.a, v.d), (v.b, v.c), (v.b, v.d)):
            if (held.id, acc.id) in seen:
                continue
            derived = _derived(spec, held, acc, fragment_results) if fragment_results is not None else None
            if derived is not None:
                seen.add((held.id, acc.id))
                out.append(derived)
                continue
            if held.id not in readings or acc.id not in readings:
                continue
            seen.add((held.id, acc.id))
            hr, ar = readings[held.id], readings[acc.id]
            if hr.layout is None or ar.layout is None:
                continue
            out.append(_computations(spec, held, acc, hr, ar, opts))
    return out


def _all_proved(fragment_results, fid, props, computations) -> bool:
    """Every one of `props` proved for fragment `fid` in each of its MMA computations."""
    want = {(p, c.id) for p in props for c in computations} if computations else {(p, None) for p in props}
    got = {(r.property, r.computation): r.verdict for r in fragment_results if r.fragment == fid and not r.erratum}
    return all(got.get(key) == PROVED for key in want)


def _derived(spec, held, acc, fragment_results) -> Result | None:
    """The theorem follows from the fragments' own proofs where each computation's lanes hold all
    of the held operand (its covers, per computation) and every C/D element lies in C/D (its
    defined and in-range) of the same M (or N), with the held operand K wide (or tall): then any
    row (column) a C/D element needs is among the cells the computation holds. Only a fragment
    proof that failed leaves the theorem a question of its own, asked of both engines; it then
    says which lane needs which cell."""
    dims_agree = (held.rows == acc.rows and held.cols == spec.k) if held.operand == "A" else \
        (held.cols == acc.cols and held.rows == spec.k)
    same_lanes = sorted(c.lanes for c in held.computations) == sorted(c.lanes for c in acc.computations)
    if not (dims_agree and same_lanes and _all_proved(fragment_results, held.id, ("covers",), held.computations)
            and _all_proved(fragment_results, acc.id, ("defined", "in-range"), acc.computations)):
        return None
    what = "row" if held.operand == "A" else "column"
    lanes_text = "; ".join(_lanes(c.lanes) for c in held.computations)
    return Result(spec.path, None, "computations", PROVED, 0.0, str(held.span), subject=f"{held.id} for {acc.id}",
                  message=f"each of the {len(held.computations)} computations holds all of {held.operand} "
                          f"({held.rows}x{held.cols}) in its own lanes ({lanes_text}), and so every {held.operand} "
                          f"{what} its {acc.id} elements need (derived from covers of {held.id} and defined and "
                          f"in-range of {acc.id} per computation, proved above)",
                  detail={"derived_from": [f"{held.id} covers", f"{acc.id} defined", f"{acc.id} in-range"]})


def _computations(spec, held, acc, hr, ar, opts) -> Result:
    subject = f"{held.id} for {acc.id}"
    groups = [c.lanes for c in held.computations]
    name = f"{spec.shape}.computations.{held.id}.{acc.id}"
    py = _needs_py(held.operand, hr, ar, groups, spec.k) if opts.cross_check else None
    ans = smt_consistency.needs(name, held.operand, hr.layout, hr.width, hr.n, ar.layout, ar.width, ar.n,
                                groups, spec.k, opts.dump_smt, expect=py)
    what = "row" if held.operand == "A" else "column"
    if py is not None and ans.verdict != UNKNOWN:
        if py != (ans.verdict, ans.witness):
            return Result(spec.path, None, "computations", UNKNOWN, ans.seconds, str(held.span), subject=subject,
                          message=f"the z3 and plain-Python engines disagree, so neither is trusted: z3 "
                                  f"{ans.verdict} {ans.witness}, enumeration {py[0]} {py[1]}")
    if ans.verdict == UNKNOWN:
        return Result(spec.path, None, "computations", UNKNOWN, ans.seconds, str(held.span), subject=subject,
                      message=f"z3 could not decide: {ans.reason}")
    if ans.verdict == REFUTED:
        w = ans.witness
        comp = next(c for c in held.computations if w["lane"] in c.lanes)
        msg = (f"computation {comp.id}: lane {w['lane']} {ar.fragment.letter}{w['i']} needs "
               f"{held.operand}[{w['cell'][0]}][{w['cell'][1]}] (its {what}, k = {w['k']}), which no lane of the "
               f"computation ({_lanes(comp.lanes)}) holds")
        return Result(spec.path, None, "computations", REFUTED, ans.seconds, str(comp.span),
                      dict(w, computation=comp.id, message=msg), subject=subject, message=msg)
    lanes_text = "; ".join(_lanes(c.lanes) for c in held.computations)
    return Result(spec.path, None, "computations", PROVED, ans.seconds, str(held.span), subject=subject,
                  message=f"each of the {len(groups)} computations finds every {held.operand} {what} its "
                          f"{acc.id} elements need in its own lanes ({lanes_text}): no computation needs "
                          f"another's data")


def _lanes(lanes) -> str:
    runs, start = [], lanes[0]
    for a, b in zip(lanes, lanes[1:] + (None,)):
        if b != a + 1:
            runs.append(f"{start}-{a}" if a != start else str(a))
            start = b
    return ",".join(runs)


FAMILY = TheoremFamily("computations", 40, "Each MMA computation's lanes hold every row and column it needs",
                        ("mma",), lambda a: computations(a.spec, a.readings, a.opts, a.fragment_results),
                        after_fragments=True)
