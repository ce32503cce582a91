"""`checker export` and `checker where`.

An export is written only when every form in it is checked both ways: the plain-Python engine
over the whole domain and z3 over the same domain must both say the form equals the spec's map
(and agree on the first point where it does not). A fragment that is not itself proved a
bijection is not exported: there is nothing trustworthy to export.
"""
from __future__ import annotations

from checker.errors import CheckerError, UsageError
from checker.export import derive, render
from checker.properties import chunk, enumerate as py_engine
from checker.semantics import sparse
from checker.spec.model import KIND_BITS

TARGETS = ("cute", "triton", "cpp", "python")


def _fragment(spec_path: str, fid: str):
    from checker.spec.load import load_spec
    from checker.spec.reading import materialize

    spec = load_spec(spec_path)
    frag = spec.fragment(fid)
    if frag is None:
        raise UsageError(f"{spec_path} has no fragment {fid!r}; it has {', '.join(f.id for f in spec.fragments())}")
    reading = materialize(frag)
    if reading.layout is None:  # pragma: no cover - the reading always parses when the spec loads
        raise CheckerError(f"{frag.span}: {fid} has no formula to export")
    return spec, frag, reading


def _proved(frag, reading, lanes) -> None:
    answers = py_engine.decide_reading(reading, lanes)
    for prop in answers:
        verdict, witness = answers[prop][0], answers[prop][1]
        if verdict != "proved":
            raise CheckerError(f"{frag.span}: {frag.id} is not {prop} ({witness}): `checker prove` it first; "
                               "a map that is not a bijection has nothing trustworthy to export")


def _agree(what: str, m, py_wrong, z3_answer) -> None:
    """z3 and the enumeration must say the same of a form: equal, or wrong first at the same point."""
    if z3_answer.verdict == "unknown":
        raise CheckerError(f"{m.fragment.span}: z3 could not decide whether the {what} equals the spec "
                           f"({z3_answer.reason}): not exported")
    z3_at = None if z3_answer.verdict == "proved" else (z3_answer.witness["t"], z3_answer.witness["i"])
    py_at = None if py_wrong is None else py_wrong[:2]
    if z3_at != py_at:
        raise CheckerError(f"{m.fragment.span}: the z3 and plain-Python engines disagree on the {what} "
                           f"(z3: {z3_at or 'equal'}, enumeration: {py_at or 'equal'}), so neither is trusted")


def _both(what: str, query: str, m, py_wrong, z3_answer) -> str:
    """Both engines on one form: returns the line saying so, or raises with the counterexample."""
    _agree(what, m, py_wrong, z3_answer)
    if py_wrong is not None:
        t, i, want, got = py_wrong
        raise CheckerError(f"{m.fragment.span}: {m.fragment.id} is not a {what}: thread {t} (lane {m.lanes[t]}) "
                           f"{m.fragment.letter}{i} is at {want}, the candidate from the points with one bit set "
                           f"gives {got} (z3 and the enumeration agree)")
    return (f"{what}: z3 proved it equal at all {len(m.lanes)} x {m.n} points (query `{query}`), "
            "and the enumeration agrees")


def export(spec_path: str, fid: str, to: str, computation: int | None, command: str) -> str:
    from checker.smt import linear as smt_linear

    _spec, frag, reading = _fragment(spec_path, fid)
    if computation is not None and not frag.computations:
        raise UsageError(f"{fid} is held by the whole warp: --computation applies only to mma.m8n8k4 .f16")
    if frag.computations and computation is not None and not 1 <= computation <= len(frag.computations):
        raise UsageError(f"--computation takes 1..{len(frag.computations)} for {fid}")
    m = derive.build(frag, computation)
    _proved(frag, reading, m.lanes)
    name = f"{frag.span.file}.{fid}"
    try:
        if to == "cute":
            c = derive.cute(m)
            z = smt_linear.strided(f"{name}.cute", reading, m.lanes, c.thread, c.value, frag.operand, m.shape)
            checks = [_both("CuTe layout", f"{name}.cute", m, derive.wrong_cute(m, c), z)]
            return render.cute(m, c, checks, command)
        b = derive.linear(m)
        z = smt_linear.bases(f"{name}.bases", reading, m.lanes, b.thread, b.element)
        wrong = derive.wrong_linear(m, b)
        if to == "triton" or wrong is None:
            checks = [_both("linear layout over GF(2)", f"{name}.bases", m, wrong, z)]
        else:
            _agree("linear layout over GF(2)", m, wrong, z)
            checks = [f"not linear over GF(2) (thread {wrong[0]} {frag.letter}{wrong[1]}: z3 and the enumeration "
                      "agree), so the inverse is a table built from the enumeration"]
        if to == "triton":
            return render.triton(m, b, checks, command)
        inv = None
        if wrong is None:
            inv = derive.inverse(m, b)
            zi = smt_linear.inverse(f"{name}.inverse", reading, m.lanes, inv.row, inv.col)
            checks.append(_both("inverse (GF(2) bases of row and col)", f"{name}.inverse", m,
                                derive.wrong_inverse(m, inv), zi))
        checks.append("row and col: printed from the proved formula's AST (tests compile and run them over "
                      "every point)")
        return (render.python if to == "python" else render.cpp)(m, inv, checks, command)
    except derive.ExportError as exc:
        raise CheckerError(f"{frag.span}: {fid}: {exc}") from None


def where(spec_path: str, fid: str, row: int, col: int, compressed: bool = False) -> dict:
    spec, frag, reading = _fragment(spec_path, fid)
    if frag.sparsity is not None and not compressed:
        return _where_sparse(spec, frag, reading, row, col)
    if compressed and frag.sparsity is None:
        raise UsageError(f"{fid} is not a sparse A: --compressed has nothing to compress")
    if not (0 <= row < frag.rows and 0 <= col < frag.cols):
        raise UsageError(f"{fid} is {frag.rows} x {frag.cols}: --row takes 0..{frag.rows - 1}, "
                         f"--col 0..{frag.cols - 1}")
    holders = []
    for k in range(1, len(frag.computations) + 1) if frag.computations else (None,):
        m = derive.build(frag, k)
        for t, lane in enumerate(m.lanes):
            for i in range(m.n):
                if m.cell(t, i) == (row, col):
                    holders.append({"computation": k, "lane": lane, "i": i, "element": f"{frag.letter}{i}",
                                    "registers": _registers(frag, i)})
    bijective = all(py_engine.decide(reading.layout, d, reading.n, frag.rows, frag.cols)["injective"][0] == "proved"
                    for d in ([c.lanes for c in frag.computations] or [tuple(range(32))]))
    return {"spec": spec_path, "shape": spec.shape, "fragment": fid, "operand": frag.operand, "row": row, "col": col,
            "holders": holders, "unique": bijective and len(holders) == max(1, len(frag.computations))}


def _where_sparse(spec, frag, reading, row: int, col: int) -> dict:
    """In a sparse A a cell is held, if it is non-zero, by one of the elements of the register
    whose range covers it; which one the metadata decides (semantics.sparse)."""
    k = frag.sparsity.k
    if not (0 <= row < frag.rows and 0 <= col < k):
        raise UsageError(f"{frag.id} is a sparse {frag.rows} x {k} A: --row takes 0..{frag.rows - 1}, --col 0..{k - 1} "
                         f"(--compressed asks about the {frag.rows} x {frag.cols} compressed A)")
    g = sparse.geometry(frag)
    points = [(lane, i) for lane in range(32) for i in range(reading.n)]
    rows, firsts, lasts = chunk.ranges(reading.layout, points)
    ranges = sorted({(lane, i // g.per_register, f, la) for (lane, i), r, f, la in zip(points, rows, firsts, lasts)
                     if r == row and f <= col <= la})
    holders = []
    for lane, reg, first, last in ranges:
        for p, c, q, index in sparse.candidates(g, col - first):
            i = reg * g.per_register + p
            start = first + c * g.chunk
            holders.append({"computation": None, "lane": lane, "i": i, "element": f"{frag.letter}{i}",
                            "registers": _registers(frag, i), "range": [first, last],
                            "metadata": {"chunk": [start, start + g.chunk - 1], "index": q, "value": index,
                                         "unit": g.unit}})
    regs = {(lane, reg) for lane, reg, _, _ in ranges}
    return {"spec": spec.path, "shape": spec.shape, "fragment": frag.id, "operand": frag.operand, "row": row,
            "col": col, "sparse": {"k": k, "granularity": f"{g.nonzero}:{g.chunk}", "pairwise": g.pairwise,
                                   "compressed_cols": frag.cols},
            "holders": holders, "unique": len(regs) == 1}


_ORDINAL = ("first", "second", "third", "fourth")


def _registers(frag, i: int) -> list:
    out = []
    for t in frag.table:
        p = t.per_register or 1
        w = KIND_BITS[t.kind] // p
        lo = (i % p) * w
        out.append({"types": list(t.types), "register": i // p, "count": t.count, "kind": t.kind,
                    "bits": [lo, lo + w - 1]})
    return out


def where_text(w: dict) -> str:
    if "sparse" in w:
        return _where_sparse_text(w)
    head = f"{w['operand']}[{w['row']}][{w['col']}] in {w['shape']} {w['fragment']}"
    if not w["holders"]:
        return f"{head}: no lane holds it (the spec does not cover this cell: `checker prove` says where)\n"
    lines = [f"{head}:"]
    for h in w["holders"]:
        comp = f"MMA computation {h['computation']}: " if h["computation"] else ""
        lines.append(f"  {comp}lane {h['lane']}, element {h['element']}")
        for r in h["registers"]:
            bits = "" if r["bits"] == [0, KIND_BITS[r["kind"]] - 1] else f", bits {r['bits'][0]}..{r['bits'][1]}"
            lines.append(f"      {'/'.join('.' + t for t in r['types'])}: register {r['register']} of {r['count']} "
                         f".{r['kind']}{bits}")
    lines.append("  the only holder" + ("s, one per MMA computation" if len(w["holders"]) > 1 else "")
                 + ": the fragment is injective over every point (enumerated)" if w["unique"]
                 else "  WARNING: the fragment is not injective, so this answer is not unique")
    return "\n".join(lines) + "\n"


def _where_sparse_text(w: dict) -> str:
    sp = w["sparse"]
    head = (f"{w['operand']}[{w['row']}][{w['col']}] in {w['shape']} {w['fragment']} (sparse {w['operand']}, "
            f"{sp['granularity']}{' pair-wise' if sp['pairwise'] else ''}: lanes hold only the non-zero elements)")
    if not w["holders"]:
        return f"{head}: no register's range covers it (`checker prove` says where the spec fails)\n"
    lines = [f"{head}:"]
    by_range: dict = {}
    for h in w["holders"]:
        by_range.setdefault((h["lane"], h["registers"][0]["register"], tuple(h["range"])), []).append(h)
    for (lane, reg, (first, last)), hs in by_range.items():
        r = hs[0]["registers"][0]
        lines.append(f"  columns {first}..{last} of row {w['row']} are held by lane {lane}, register {reg} of "
                     f"{r['count']} .{r['kind']}")
        lines.append(f"  if {w['operand']}[{w['row']}][{w['col']}] is non-zero, the metadata says which element holds it:")
        for h in hs:
            md = h["metadata"]
            what = "two-wide sub-chunk" if md["unit"] == 2 else "position"
            bits = "; ".join(f"{'/'.join('.' + t for t in x['types'])} bits {x['bits'][0]}..{x['bits'][1]}"
                             for x in h["registers"])
            lines.append(f"    {h['element']:>5}  when the {_ORDINAL[md['index']]} index of chunk "
                         f"[{md['chunk'][0]}..{md['chunk'][1]}] is {md['value']} ({what} {md['value']}); {bits}")
    lines.append("  (ordered metadata: a chunk's indices increase. Which lane and bits of the metadata operand "
                 "hold them is drawn only in the document's figures.)")
    if not w["unique"]:
        lines.append("  WARNING: more than one register's range covers this cell: the fragment is not a tiling")
    return "\n".join(lines) + "\n"
