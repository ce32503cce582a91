"""Cross-operand theorems of one spec: dimensions, MMA computations, shared layouts and register
packing. Each is a Result with a `subject`, proved by both engines where it is a new question,
or derived (and saying so) where it follows from the per-fragment proofs."""
from __future__ import annotations

import time
from dataclasses import replace

from checker.formula.parser import parse_expr
from checker.formula.evaluate import warp_table
from checker.results import PROVED, REFUTED, UNKNOWN, Result
from checker.semantics.variants import variants
from checker.smt import consistency as smt_consistency
from checker.errors import SpecError
from checker.spec.model import KIND_BITS
from checker.spec.reading import header
from checker.source import plain
from checker.theorems.equation import Equation, Side
from checker.theorems.run import equation_result

_DIM_NAMES = {"A": ("M", "K"), "B": ("K", "N"), "C": ("M", "N")}


def contiguous(fragment) -> str:
    """The matrix dimension along which memory is contiguous for this fragment's layout:
    A is .row unless stated (K contiguous), B is .col (K contiguous), C/D are row-major."""
    if fragment.operand == "A":
        return "col" if (fragment.layout or "row") == "row" else "row"
    if fragment.operand == "B":
        return "row" if (fragment.layout or "col") == "col" else "col"
    return "col"


FAMILIES = ("computations", "shared-layout", "packing", "composition", "containers", "warpgroup")
# The theorems each instruction family's specs are held to (checker.families): these are about
# the warp-level mma, its operands A, B, C and its document's words; another family's come with
# its specs.
THEOREMS = {"mma": ("dimensions", "same-as", "words", "computations", "shared-layout", "packing"),
            # ldmatrix & co.: their layouts placed on mma fragments (checker/theorems/composition.py)
            # and where ldmatrix .b8x16 and mma .kind::f8f6f4 put 4-/6-bit values (theorems/containers.py)
            "ldmatrix": ("composition", "containers"), "stmatrix": ("composition",), "movmatrix": ("composition",),
            # wgmma: the warpgroup's fragments and the mma.sync fragments they are made of
            # (checker/theorems/warpgroup.py)
            "wgmma": ("words", "warpgroup"),
            # wgmma.mma_async.sp: its compressed A tied to the dense A and to mma.sp's
            # (checker/theorems/warpgroup_sparse.py); D is the dense shape's ("same as")
            "wgmma.sp": ("words", "same-as", "warpgroup")}


def theorems_of(spec) -> tuple:
    return THEOREMS.get(spec.family, ())


def spec_theorems(spec, readings: dict, opts, families=FAMILIES) -> list:
    """The theorems that ask new questions; `dimensions` follows from the fragment proofs. Only the
    spec's own family's theorems (the mutation campaign asks for all of them)."""
    families = tuple(f for f in families if f in theorems_of(spec))
    out = []
    if "computations" in families:
        out += computations(spec, readings, opts)
    if "shared-layout" in families:
        out += shared(spec, readings)
    if "packing" in families:
        out += packing(spec, readings, opts)
    # each family's theorem module is imported by the task that needs it (a seed proof: no numpy)
    if "composition" in families and spec.compositions:
        from checker.theorems import composition

        out += composition.prove(spec, readings, opts)
    if "containers" in families and spec.containers is not None:
        from checker.theorems import containers

        out += containers.prove(spec, opts)
    if "warpgroup" in families and spec.family == "wgmma.sp":
        from checker.theorems import warpgroup_sparse

        out += warpgroup_sparse.theorems(spec, readings, opts)
    elif "warpgroup" in families:
        from checker.theorems import warpgroup

        out += warpgroup.theorems(spec, readings, opts)
    return out


def _proved(fragment_results, fid, props=("defined", "in-range", "covers")) -> tuple:
    mine = [r for r in fragment_results if r.fragment == fid and r.property in props and not r.erratum]
    bad = [r for r in mine if r.verdict != PROVED]
    return bool(mine) and not bad, bad


def dimensions(spec, fragment_results) -> list:
    out, seen = [], set()
    dims = {"M": spec.m, "N": spec.n, "K": spec.k}
    for v in variants(spec):
        key = (v.a.id, v.b.id, v.c.id, v.d.id)
        if key in seen:
            continue
        seen.add(key)
        t0 = time.perf_counter()
        subject = f"{v.a.id} x {v.b.id} -> {v.c.id}" + (f" / {v.d.id}" if v.d is not v.c else "")
        problems, undecided = [], 0
        for op, frag in (("A", v.a), ("B", v.b), ("C", v.c), ("D", v.d)):
            names = _DIM_NAMES["C" if op == "D" else op]
            want = tuple(dims[n] for n in names)
            if (frag.rows, frag.cols) != want:
                problems.append(f"{op} ({frag.id}) is {frag.rows}x{frag.cols}, not {'x'.join(names)} = {want[0]}x{want[1]}")
            ok, bad = _proved(fragment_results, frag.id)
            if not ok:
                undecided += bool(bad) and all(r.verdict == UNKNOWN for r in bad)
                what = ", ".join(sorted({r.property for r in bad})) or "its proofs"
                problems.append(f"{op} ({frag.id}) is not shown to map onto its {frag.rows}x{frag.cols} matrix ({what} failed)")
        for op, frag in (("C", v.c), ("D", v.d)):
            try:
                text = header(frag)
            except SpecError:
                continue  # an erratum that does not apply: reported with the fragment
            if f".{op.lower()}type" not in text:
                problems.append(f"{frag.id} holds {op} in {v.instruction}, but its table is headed {text!r}, "
                                f"not naming .{op.lower()}type: the document gives {op} no layout")
        per = " per MMA computation" if v.a.computations else ""
        if problems:
            # derived from what is unknown, and nothing refuted: the theorem is unknown, not false
            verdict = UNKNOWN if undecided == len(problems) else REFUTED
            out.append(Result(spec.path, None, "dimensions", verdict, time.perf_counter() - t0, str(v.c.span),
                              {"message": "; ".join(problems)}, subject=subject, message="; ".join(problems)))
            continue
        msg = (f"A is {spec.m}x{spec.k} (MxK), B {spec.k}x{spec.n} (KxN), C and D {spec.m}x{spec.n} (MxN){per}; "
               f"C and D share the layout of the tables headed '.ctype / .dtype'"
               + (f" (D of a .{v.dtype} result uses {v.d.id})" if v.d is not v.c else "")
               + "; derived from defined, in-range and covers of each fragment, proved above")
        out.append(Result(spec.path, None, "dimensions", PROVED, time.perf_counter() - t0, str(v.a.span),
                          subject=subject, message=msg))
    return out


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


def shared(spec, readings) -> list:
    """One formula for several table rows (types) is one layout when every row names the same
    elements; the registers holding them may still differ, and that is said."""
    out = []
    for f in spec.fragments():
        if f.id not in readings or len(f.types) < 2:
            continue
        r = readings[f.id]
        lists = [(row, els) for row, els in zip(f.table, r.elements) if els is not None]
        if not lists:
            continue  # sparse A names no elements; its loader holds every row to one range size
        first = lists[0][1]
        bad = [(row, els) for row, els in lists[1:] if els != first]
        types = ", ".join("." + t for t in f.types)
        regs = "; ".join(f"{'/'.join(row.types)}: {row.count} x .{row.kind}" for row in f.table)
        if bad:  # the first position where the lists part ("4 vs 4" said nothing of c3 for c2)
            row, els = bad[0]
            k = next((j for j, (x, y) in enumerate(zip(els, first)) if x != y), min(len(els), len(first)))
            out.append(Result(spec.path, None, "shared-layout", REFUTED, 0.0, str(row.span), {"message": f"elements {', '.join(els[:6])}... differ from {', '.join(first[:6])}..."},
                              subject=f.id, message=f"one formula is given for {types}, but the table row of {'/'.join(row.types)} names "
                                                    f"{[*els, 'no element'][k]} as element {k}, where the {'/'.join(lists[0][0].types)} row names {[*first, 'no element'][k]}"))
            continue
        empty = [row for row, els in zip(f.table, r.elements) if els is None]
        # Claim no more than was read: a row whose Elements cell is empty names nothing to compare.
        names = lambda rows_: ", ".join("/".join("." + t for t in row.types) for row in rows_)  # noqa: E731
        what = f"{len(first)} elements {first[0]}..{first[-1]}"
        if not empty:
            said = f"every table row names the same {what}"
        elif len(lists) == 1:
            said = f"only the {names([lists[0][0]])} row lists its elements ({what}); the Elements cell of {names(empty)} is empty"
        else:
            said = (f"the rows that list elements ({names([row for row, _ in lists])}) name the same {what}; "
                    f"the Elements cell of {names(empty)} is empty")
        out.append(Result(spec.path, None, "shared-layout", PROVED, 0.0, str(f.span), subject=f.id,
                          message=f"one layout for {types}: one formula, and {said}; registers: {regs}"))
    return out


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
