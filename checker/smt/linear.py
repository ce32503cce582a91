"""z3 proofs that an exported form equals the spec's map at every (thread, element): the GF(2)
bases of a linear layout, the inverse bases, the modes of a CuTe layout. Each is one
quantifier-free query for the smallest (t, i) where the form is wrong; unsat is the proof."""
from __future__ import annotations

import time

from checker.smt.symbolic import Answer, symbolic
from checker.smt.solver import Session, Var, bv
from checker.smt.terms import disj
from checker.results import PROVED, REFUTED, UNKNOWN

WIDE = 32


def _setup(reading, lanes, name, dump_dir):
    w = reading.width
    lane, i, t = Var("lane", w), Var("i", w), Var("t", WIDE)
    at = symbolic(reading.layout, w).at(lane, i)
    wide = lambda x: f"((_ zero_extend {WIDE - w}) {x})"  # noqa: E731
    s = Session(name, dump_dir)
    s.add(f"(bvsge {i} {bv(0, w)})", f"(bvslt {i} {bv(reading.n, w)})", f"(bvslt {t} {bv(len(lanes), WIDE)})", at.has)
    s.add(f"(= {wide(lane)} {t})" if lanes == tuple(range(32)) else
          disj(f"(and (= {t} {bv(k, WIDE)}) (= {wide(lane)} {bv(v, WIDE)}))" for k, v in enumerate(lanes)))
    return s, t, i, wide(i), wide(at.row), wide(at.col)


def _xor(x, bases, k, start=0):
    acc = bv(start, WIDE)
    for j, b in enumerate(bases):
        acc = f"(bvxor {acc} (ite (= ((_ extract {j} {j}) {x}) #b1) {bv(b[k], WIDE)} {bv(0, WIDE)}))"
    return acc


def _xor_map(x, x_bases, y, y_bases, offset=(0, 0)):
    """Both outputs of the GF(2) map with bases x_bases on the bits of x and y_bases on y's, XOR
    `offset` (an affine map; (0, 0) leaves the query as it was)."""
    return tuple(f"(bvxor {_xor(x, x_bases, k, offset[k])} {_xor(y, y_bases, k)})" for k in (0, 1))


def _answer(s, query, t, i, wrong, t0) -> Answer:
    out = s.minimize(query, [t, i], wrong)
    if out.status == "unsat":
        ans = Answer(PROVED, queries=[query])
    elif out.status == "sat":
        ans = Answer(REFUTED, {"t": out.model[str(t)], "i": out.model[str(i)]}, queries=[query])
    else:
        ans = Answer(UNKNOWN, reason=out.reason or "z3 answered unknown", queries=[query])
    ans.seconds = time.perf_counter() - t0
    return ans


def bases(name, reading, lanes, thread, element, dump_dir=None) -> Answer:
    """(row, col)(t, i) == XOR of thread[j] over the set bits j of t, and element[j] of i."""
    t0 = time.perf_counter()
    s, t, i, wide_i, row, col = _setup(reading, lanes, name, dump_dir)
    want_r, want_c = _xor_map(t, thread, wide_i, element)
    return _answer(s, "bases", t, i, f"(or (distinct {row} {want_r}) (distinct {col} {want_c}))", t0)


def inverse(name, reading, lanes, by_row, by_col, dump_dir=None, offset=(0, 0)) -> Answer:
    """(t, i) == offset XOR by_row[j] over the set bits j of row(t, i), and by_col[j] of col."""
    t0 = time.perf_counter()
    s, t, i, wide_i, row, col = _setup(reading, lanes, name, dump_dir)
    want_t, want_i = _xor_map(row, by_row, col, by_col, offset)
    return _answer(s, "inverse", t, i, f"(or (distinct {t} {want_t}) (distinct {wide_i} {want_i}))", t0)


def _strided(x, modes):
    idx, rest = bv(0, WIDE), x
    for size, stride in modes:
        idx = f"(bvadd {idx} (bvmul (bvurem {rest} {bv(size, WIDE)}) {bv(stride, WIDE)}))"
        rest = f"(bvudiv {rest} {bv(size, WIDE)})"
    return idx


def strided(name, reading, lanes, thread, value, operand, shape, dump_dir=None) -> Answer:
    """CuTe: index(row, col) == sum over modes of coordinate x stride, for t and for i."""
    t0 = time.perf_counter()
    s, t, i, wide_i, row, col = _setup(reading, lanes, name, dump_dir)
    index = (f"(bvadd {col} (bvmul {row} {bv(shape[1], WIDE)}))" if operand == "B"
             else f"(bvadd {row} (bvmul {col} {bv(shape[0], WIDE)}))")
    return _answer(s, "cute", t, i, f"(distinct {index} (bvadd {_strided(t, thread)} {_strided(wide_i, value)}))", t0)
