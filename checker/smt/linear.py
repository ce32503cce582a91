"""z3 proofs that an exported form equals the spec's map at every (thread, element): the GF(2)
bases of a linear layout, the inverse bases, the modes of a CuTe layout. Each is one
quantifier-free query for the smallest (t, i) where the form is wrong; unsat is the proof."""
from __future__ import annotations

import time

import z3

from checker.smt.properties import Answer, Symbolic
from checker.smt.solver import Session

WIDE = 32


def _setup(reading, lanes, name, dump_dir):
    sym = Symbolic(reading.layout, reading.width, "_x")
    t = z3.BitVec("t", WIDE)
    s = Session(name, dump_dir)
    lane = z3.ZeroExt(WIDE - reading.width, sym.l)
    i = z3.ZeroExt(WIDE - reading.width, sym.i)
    s.add(sym.i >= 0, sym.i < reading.n, t < len(lanes), sym.has)
    s.add(lane == t if lanes == tuple(range(32)) else z3.Or([z3.And(t == k, lane == v) for k, v in enumerate(lanes)]))
    row = z3.ZeroExt(WIDE - reading.width, sym.row)
    col = z3.ZeroExt(WIDE - reading.width, sym.col)
    return s, t, i, row, col


def _xor(x, bases, k):
    acc = z3.BitVecVal(0, WIDE)
    for j, b in enumerate(bases):
        acc = acc ^ z3.If(z3.Extract(j, j, x) == 1, z3.BitVecVal(b[k], WIDE), z3.BitVecVal(0, WIDE))
    return acc


def _xor_map(x, x_bases, y, y_bases):
    """Both outputs of the GF(2) map with bases x_bases on the bits of x and y_bases on y's."""
    return tuple(_xor(x, x_bases, k) ^ _xor(y, y_bases, k) for k in (0, 1))


def _answer(s, query, t, i, wrong, t0) -> Answer:
    out = s.minimize(query, [t, i], wrong)
    if out.status == "unsat":
        ans = Answer("proved", queries=[query])
    elif out.status == "sat":
        v = lambda e: out.model.eval(e, model_completion=True).as_long()  # noqa: E731
        ans = Answer("refuted", {"t": v(t), "i": v(i)}, queries=[query])
    else:
        ans = Answer("unknown", reason=out.reason or "z3 answered unknown", queries=[query])
    ans.seconds = time.perf_counter() - t0
    return ans


def bases(name, reading, lanes, thread, element, dump_dir=None) -> Answer:
    """(row, col)(t, i) == XOR of thread[j] over the set bits j of t, and element[j] of i."""
    t0 = time.perf_counter()
    s, t, i, row, col = _setup(reading, lanes, name, dump_dir)
    want_r, want_c = _xor_map(t, thread, i, element)
    return _answer(s, "bases", t, i, z3.Or(row != want_r, col != want_c), t0)


def inverse(name, reading, lanes, by_row, by_col, dump_dir=None) -> Answer:
    """(t, i) == XOR of by_row[j] over the set bits j of row(t, i), and by_col[j] of col."""
    t0 = time.perf_counter()
    s, t, i, row, col = _setup(reading, lanes, name, dump_dir)
    want_t, want_i = _xor_map(row, by_row, col, by_col)
    return _answer(s, "inverse", t, i, z3.Or(t != want_t, i != want_i), t0)


def _strided(x, modes):
    idx, rest = z3.BitVecVal(0, WIDE), x
    for size, stride in modes:
        idx = idx + z3.URem(rest, size) * stride
        rest = z3.UDiv(rest, size)
    return idx


def strided(name, reading, lanes, thread, value, operand, shape, dump_dir=None) -> Answer:
    """CuTe: index(row, col) == sum over modes of coordinate x stride, for t and for i."""
    t0 = time.perf_counter()
    s, t, i, row, col = _setup(reading, lanes, name, dump_dir)
    index = col + row * shape[1] if operand == "B" else row + col * shape[0]
    return _answer(s, "cute", t, i, index != _strided(t, thread) + _strided(i, value), t0)
