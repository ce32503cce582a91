"""packing: which elements share a 32-bit register, and whether they are adjacent along the
contiguous dimension -- what lets a plain vector load fill registers. Facts, each proved either way."""
from __future__ import annotations

import time
from dataclasses import replace

from checker.formula.parser import parse_expr
from checker.formula.evaluate import warp_table
from checker.results import PROVED, Result
from checker.spec.model import KIND_BITS
from checker.source import plain
from checker.theorems.equation import Equation, Side
from checker.theorems.family import TheoremFamily
from checker.theorems.run import equation_result


def contiguous(fragment) -> str:
    """The matrix dimension along which memory is contiguous for this fragment's layout:
    A is .row unless stated (K contiguous), B is .col (K contiguous), C/D are row-major."""
    if fragment.operand == "A":
        return "col" if (fragment.layout or "row") == "row" else "row"
    if fragment.operand == "B":
        return "row" if (fragment.layout or "col") == "col" else "col"
    return "col"


def _side(reading, name, element, span, row=None, col=None, lane=None):
    src = {k: plain(t, span) for k, t in (("element", element), ("row", row), ("col", col), ("lane", lane)) if t}
    nodes = {k: parse_expr(s) for k, s in src.items()}
    return Side(name, reading, nodes.get("lane"), nodes["element"], nodes.get("row"), nodes.get("col"), src)


def packing(spec, readings, opts) -> list:
    """Which elements share a 32-bit register, and whether they are adjacent along the contiguous
    dimension -- what lets a plain vector load fill registers. Facts, each proved either way."""
    out = []
    for f in spec.fragments():
        r = readings.get(f.id)
        if r is None or r.layout is None:
            continue
        groups: dict = {}
        for t in f.table:
            groups.setdefault((t.count, t.per_register or 1, t.kind), []).append(t)
        pairs = None
        for rows in groups.values():
            row = rows[0]
            if (row.per_register or 1) * row.count != r.n:
                continue  # the register table does not match the elements: fragment-shape says so
            types = tuple(t for x in rows for t in x.types)
            label = f"{f.id} as {'/'.join(types)} ({row.count} x .{row.kind})"
            first = pairs is None
            pairs = pairs or _pairs(spec, f, r, label, opts)  # one question per fragment, whatever its registers
            out.append(_packing(spec, f, row, label, pairs, first))
    return out


def _pairs(spec, f, r, label, opts) -> tuple:
    """One question about consecutive elements (e, e+1): which are adjacent along the contiguous
    dimension in every lane. Enumeration splits the pairs into adjacent and not; z3 proves the
    first set adjacent and finds a witness in the second. Within-register adjacency and register
    runs both follow from that one split."""
    along = contiguous(f)
    step = {"row": ("row + 1", None), "col": (None, "col + 1")}[along]
    name = f"{spec.shape}/{f.id}"
    rows, cols = warp_table(r.layout, r.n)
    step_on, same_on = (rows, cols) if along == "row" else (cols, rows)
    n = r.n

    def adjacent(e):
        return all(step_on[at + 1] == step_on[at] + 1 and same_on[at + 1] == same_on[at]
                   for at in range(e, 32 * n, n))

    pairs = tuple(range(r.n - 1))
    joined = tuple(e for e in pairs if adjacent(e))
    apart = tuple(e for e in pairs if e not in joined)
    results = []
    for group, expect in ((joined, "holds"), (apart, "refuted")):
        if group:
            eq = Equation(f"{spec.shape}.packing.{f.id}.{expect}", (("e", group),), tuple(range(32)),
                          _side(r, name, "e + 1", f.span), _side(r, name, "e", f.span, *step), f.span)
            results.append(equation_result(eq, opts, spec.path, "packing", label, str(f.span), expect=expect))
    return pairs, joined, results


def _packing(spec, f, row, label, pairs, first) -> Result:
    """What the split of the pairs says about one register kind; `first`: the split's proofs are
    charged to this result."""
    t0 = time.perf_counter()
    pairs, joined, results = pairs
    p, count = row.per_register or 1, row.count
    dim = {("A", "col"): "K", ("A", "row"): "M", ("B", "row"): "K", ("B", "col"): "N", ("C", "col"): "N"}[(f.operand, contiguous(f))]
    if f.sparsity is not None:
        dim = "K of the compressed A"  # the non-zero elements as stored: what a load reads
    bad = [x for x in results if not (x.verdict == PROVED and not x.message.startswith("expected")) and not x.declared]
    if bad:
        return replace(bad[0], subject=label, seconds=bad[0].seconds if first else 0.0)
    parts = [] if count > 1 or p > 1 else [f"one .{row.kind} register"]
    if p > 1:
        inside = all(e in joined for e in pairs if e % p != p - 1)
        parts.append(f"each .{row.kind} register holds {p} elements " + (
            f"adjacent along {dim}, in element order" if inside else f"NOT all adjacent along {dim}"))
    links = tuple(q for q in range(count - 1) if p * q + p - 1 in joined)
    runs = _runs(count, links)
    if count > 1:
        if not links:
            parts.append(f"no register continues the previous one's run along {dim}: each register is its own run")
        else:
            parts.append(f"registers {', '.join(f'{q}->{q + 1}' for q in links)} continue one run along {dim}"
                         + (f"; {', '.join(f'{q}->{q + 1}' for q in range(count - 1) if q not in links)} do not"
                            if len(links) < count - 1 else "")
                         + f": runs of {' + '.join(str(x) for x in runs)} registers")
    whole = p > 1 and not all(e in joined for e in pairs if e % p != p - 1)
    widest = _bits(row) if whole else max(runs) * p * _bits(row)
    parts.append(f"so the widest load that fills a lane's registers directly is {widest} bits")
    witness = next((x.counterexample for x in results if x.declared), None)
    seconds = sum(x.seconds for x in results) * first + time.perf_counter() - t0
    return Result(spec.path, None, "packing", PROVED, seconds, str(f.span), subject=label,
                  message="; ".join(parts), detail={"witness": witness})


def _runs(count, joined):
    runs, cur = [], 1
    for q in range(count - 1):
        if q in joined:
            cur += 1
        else:
            runs.append(cur)
            cur = 1
    return runs + [cur]


def _bits(row) -> int:
    return KIND_BITS[row.kind] // (row.per_register or 1)


FAMILY = TheoremFamily("packing", 60, "Register contents are contiguous along the fragment's contiguous dimension",
                        ("mma",), lambda a: packing(a.spec, a.readings, a.opts))
