"""A fragment exported as CuTe, Triton, C++/CUDA or Python, checked against the spec.

An export is written only when every form in it is checked both ways: the plain-Python engine
over the whole domain and z3 over the same domain must both say the form equals the spec's map
(and agree on the first point where it does not). A fragment that is not itself proved a
bijection is not exported: there is nothing trustworthy to export.
"""
from __future__ import annotations

from checker.errors import CheckerError, UsageError
from checker.export import derive, render
from checker.properties import enumerate as py_engine
from checker.results import PROVED, UNKNOWN

TARGETS = ("cute", "triton", "cpp", "python")


def fragment(spec_path: str, fid: str):
    """(spec, fragment, reading) of fragment `fid` of the spec file; a usage error where it has none."""
    from checker.spec.checked import load_checked
    from checker.spec.reading import materialize

    spec = load_checked(spec_path)
    frag = spec.fragment(fid)
    if frag is None:
        from checker.spec.lookup import unknown

        raise UsageError(unknown(spec, spec_path, fid))
    reading = materialize(frag)
    if reading.layout is None:  # pragma: no cover - the reading always parses when the spec loads
        raise CheckerError(f"{frag.span}: {fid} has no formula to export")
    return spec, frag, reading


def _proved(spec_path, frag, reading, lanes) -> None:
    """Raises, at the piece the property's own message blames, unless every property holds."""
    from checker.properties import get
    from checker.properties.explain import Explain

    answers = py_engine.decide_reading(reading, lanes)
    for prop in answers:
        verdict, witness = answers[prop][0], answers[prop][1]
        if verdict != PROVED:
            found = get(prop).message(Explain(spec_path, reading), witness) if witness is not None else None
            said = found.message if found else f"{frag.id} is not {prop} ({verdict})"
            raise CheckerError(f"{(found and found.location) or frag.span}: {said}; "
                               "`checker prove` it first: a map that is not a bijection has nothing trustworthy "
                               "to export")


def _agree(what: str, m, py_wrong, z3_answer) -> None:
    """z3 and the enumeration must say the same of a form: equal, or wrong first at the same point."""
    if z3_answer.verdict == UNKNOWN:
        raise CheckerError(f"{m.fragment.span}: z3 could not decide whether the {what} equals the spec "
                           f"({z3_answer.reason}): not exported")
    z3_at = None if z3_answer.verdict == PROVED else (z3_answer.witness["t"], z3_answer.witness["i"])
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


def _not_for_triton(spec, frag, m) -> str:
    """Why a Triton export is refused, and which instances of the fragment Triton can take: a linear
    layout maps each bit of (register, lane, warp) to a cell, so every dimension is a power of two
    (Triton's tensors too: its wgmma N is always one, see checker/references/data/triton-nvmma_v3.yaml)."""
    base = frag.id.split("[", 1)[0]
    fits = [f.id for f in spec.fragments() if f.id.split("[", 1)[0] == base and f.id != frag.id
            and None not in (derive.log2(f.rows), derive.log2(f.cols))]
    where = (f"; the instances it can take: {', '.join(fits)}" if fits else "")
    return (f"{frag.span}: {frag.id}: Triton's linear layouts need power-of-two dimensions (one basis per bit of "
            f"the register, lane and warp index, and of row and col), and this is a {m.shape[0]}x{m.shape[1]} matrix "
            f"with {m.n} elements per thread: not exported{where}; --to cute, cpp and python take it as it is")


_PRINTED = "row and col: printed from the proved formula's AST (tests compile and run them over every point)"
_TABLE = "so the inverse is a table built from the enumeration"


def _of_cells(m, reading, name: str, checks: list):
    """The GF(2)-affine inverse read off the cells (derive.of_cells), written only where both engines
    find it right at every point (the guarantee every form exported carries); None, with the reason in
    `checks`, where it is wrong somewhere: then the inverse is a table, a plain lookup of the
    enumeration, which needs no proof of its own."""
    from checker.smt import linear as smt_linear

    what = "inverse (GF(2) bases of row and col, read off the cells with one bit set)"
    inv = derive.of_cells(m)
    if inv is None:  # pragma: no cover - `covers` is proved first (_proved): every cell is held
        checks.append(f"a cell with one bit set is held by no point, {_TABLE}")
        return None
    zi = smt_linear.inverse(f"{name}.inverse", reading, m.lanes, inv.row, inv.col, offset=inv.offset)
    wrong = derive.wrong_inverse(m, inv)
    _agree(what, m, wrong, zi)
    if wrong is not None:
        checks.append(f"no GF(2)-affine inverse (the one read off the cells with one bit set is wrong at thread "
                      f"{wrong[0]} {m.fragment.letter}{wrong[1]}: z3 and the enumeration agree), {_TABLE}")
        return None
    checks.append(_both(what, f"{name}.inverse", m, wrong, zi))
    return inv


def export(spec_path: str, fid: str, to: str, computation: int | None, command: str) -> str:
    """The fragment `fid` of the spec file, exported (`checker export`)."""
    spec, frag, reading = fragment(spec_path, fid)
    return export_fragment(spec_path, spec, frag, reading, to, computation, command)


def export_fragment(spec_path: str, _spec, frag, reading, to: str, computation: int | None, command: str) -> str:
    """A fragment already loaded, exported: a checker.Layout exports the map it holds, not what its
    file says when it is asked (the file may have changed, or the working folder)."""
    from checker.smt import linear as smt_linear

    fid = frag.id
    if computation is not None and not frag.computations:
        raise UsageError(f"{fid} is held by the whole warp: --computation applies only to mma.m8n8k4 .f16")
    if frag.computations and computation is not None and not (
            type(computation) is int and 1 <= computation <= len(frag.computations)):
        raise UsageError(f"--computation takes 1..{len(frag.computations)} for {fid}, found {computation!r:.40}")
    if frag.lanes is not None:
        # a block-scale factor: the lanes its selector picks hold it, the others nothing. A CuTe or
        # Triton layout maps every lane, and a function of %laneid would answer for lanes that hold none
        picked = ", ".join(map(str, frag.lanes[:6]))
        raise CheckerError(f"{frag.span}: {fid} is held by {len(frag.lanes)} of the warp's {frag.threads.count} lanes, "
                           f"those {', '.join(f'{k} = {v}' for k, v in frag.params)} picks ({picked}, ...): a layout "
                           "of part of a warp is not exported; `checker table` and `checker where` give it lane by lane")
    m = derive.build(frag, computation)
    _proved(spec_path, frag, reading, m.lanes)
    name = f"{frag.span.file}.{fid}"
    try:
        if to == "cute":
            c = derive.cute(m)
            z = smt_linear.strided(f"{name}.cute", reading, m.lanes, c.thread, c.value, frag.operand, m.shape)
            checks = [_both("CuTe layout", f"{name}.cute", m, derive.wrong_cute(m, c), z)]
            return render.cute(m, c, checks, command)
        powers = None not in (derive.log2(len(m.lanes)), derive.log2(m.n), *map(derive.log2, m.shape))
        if to == "triton" and not powers:
            raise UsageError(_not_for_triton(_spec, frag, m))
        if not powers:
            # wgmma D at N = 24: no bases of the map itself, but its inverse may still be GF(2) bases over the
            # bits of (row, col), read off the cells and checked like the rest
            checks = [f"sizes not all powers of two ({len(m.lanes)} threads, {m.n} elements, a "
                      f"{m.shape[0]}x{m.shape[1]} matrix): no linear layout of the map itself (Triton's form)"]
            inv = _of_cells(m, reading, name, checks)
            checks.append(_PRINTED)
            return (render.python if to == "python" else render.cpp)(m, inv, checks, command)
        b = derive.linear(m)
        z = smt_linear.bases(f"{name}.bases", reading, m.lanes, b.thread, b.element)
        wrong = derive.wrong_linear(m, b)
        if to == "triton" or wrong is None:
            checks = [_both("linear layout over GF(2)", f"{name}.bases", m, wrong, z)]
        else:
            _agree("linear layout over GF(2)", m, wrong, z)
            checks = [f"not linear over GF(2) (thread {wrong[0]} {frag.letter}{wrong[1]}: z3 and the enumeration "
                      "agree)"]
        if to == "triton":
            return render.triton(m, b, checks, command)
        if wrong is None:
            inv = derive.inverse(m, b)
            zi = smt_linear.inverse(f"{name}.inverse", reading, m.lanes, inv.row, inv.col)
            checks.append(_both("inverse (GF(2) bases of row and col)", f"{name}.inverse", m,
                                derive.wrong_inverse(m, inv), zi))
        else:  # not linear, but an affine inverse (a map whose cell (0, 0) is not thread 0's element 0) may fit
            inv = _of_cells(m, reading, name, checks)
        checks.append(_PRINTED)
        return (render.python if to == "python" else render.cpp)(m, inv, checks, command)
    except derive.ExportError as exc:
        raise CheckerError(f"{frag.span}: {fid}: {exc}") from None
