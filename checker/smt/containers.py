"""z3 side of the container theorem (checker/theorems/containers.py): is there a value, and
padding where the reading leaves it unsaid, for which the bits mma reads are not the value?

Every term is a 32-bit vector: a container is 8 bits, a register four of them, so no term
overflows and a left shift of the register drops its top bits as the hardware's does. The smallest
counterexample is lexicographic over (values..., paddings...), as the plain-Python engine
enumerates them."""
from __future__ import annotations

import time

from checker.results import PROVED, REFUTED, UNKNOWN
from checker.smt.solver import Session, Var, bv
from checker.smt.symbolic import Answer
from checker.smt.terms import conj

W = 32


def prove(name: str, q, dump_dir=None, expect=None) -> Answer:
    """`q`: checker.theorems.containers.Question. `expect`: the plain-Python engine's
    (verdict, witness), whose smallest point z3 confirms rather than searches for."""
    t0 = time.perf_counter()
    n = 4 if q.shift is not None else 1
    values = [Var(f"containers.v{k}", W) for k in range(n)]
    pads = [Var(f"containers.u{k}", W) for k in range(n)]
    domain = [f"(bvult {v} {bv(1 << q.load_width, W)})" for v in values]
    for u in pads:
        # zero where the reading says so; else any bits outside the value's
        domain.append(f"(= {u} {bv(0, W)})" if q.upper == "zero"
                      else f"(= (bvand {u} {bv(~q.padding_mask & 0xFFFFFFFF, W)}) {bv(0, W)})")
    boxes = [f"(bvor (bvshl {v} {bv(q.load_low, W)}) {u})" for v, u in zip(values, pads)]
    if q.shift is None:
        read = f"(bvand (bvlshr {boxes[0]} {bv(q.read_low, W)}) {bv((1 << q.read_width) - 1, W)})"
        wrong = f"(distinct {read} {values[0]})"
        shown = [boxes[0], read]
    else:
        register = "(bvor " + " ".join(f"(bvshl {b} {bv(8 * k, W)})" for k, b in enumerate(boxes)) + ")"
        shifted = f"(bvshl {register} {bv(q.shift, W)})"
        after = [f"(bvand (bvlshr {shifted} {bv(8 * k, W)}) {bv(0xFF, W)})" for k in range(n)]
        # the exact container the document describes: the value in the bits mma reads, zero padding
        wrong = "(or " + " ".join(f"(distinct {a} (bvshl {v} {bv(q.read_low, W)}))" for a, v in zip(after, values)) + ")"
        shown = [register, shifted]
    variables = values + pads
    hint = None
    if expect is not None and expect[0] == REFUTED:
        hint = tuple(expect[1]["point"])
    session = Session(f"containers.{name}", dump_dir)
    session.add(conj(domain))
    out = session.minimize("wrong", variables, wrong, values=shown, expect=hint)
    if out.status == "unsat":
        answer = Answer(PROVED, queries=["wrong"])
    elif out.status == "sat":
        answer = Answer(REFUTED, {"point": [out.model[str(v)] for v in variables],
                                    "shown": [out.model[t] for t in shown]}, queries=["wrong"])
    else:
        answer = Answer(UNKNOWN, reason=out.reason or "z3 answered unknown", queries=["wrong"])
    answer.seconds = time.perf_counter() - t0
    return answer
