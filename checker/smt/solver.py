"""A deterministic solver wrapper: every query named, seeded, time-bounded and dumpable."""
from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass

import z3

TIMEOUT_MS = 5000
# A pull request's spec may be built to make every query slow within its own limit: the solver
# time of one process is bounded too, after which every query answers unknown (never a pass).
TOTAL_BUDGET_S = 120.0
_spent = 0.0


@dataclass
class Outcome:
    status: str  # sat | unsat | unknown
    model: object = None
    reason: str = ""


class Session:
    """One incremental solver per (fragment, domain): properties push and pop their queries."""

    def __init__(self, name: str, dump_dir: str | None = None, timeout_ms: int = TIMEOUT_MS):
        self.name = name
        self.dump_dir = dump_dir
        self.solver = z3.SolverFor("QF_BV")
        self.solver.set("random_seed", 0)
        self.solver.set("timeout", timeout_ms)
        self.timeout_ms = timeout_ms

    def add(self, *facts):
        self.solver.add(*facts)

    def check(self, query: str, *assumptions) -> Outcome:
        s = self.solver
        s.push()
        s.add(*assumptions)
        if self.dump_dir:
            self._dump(query, s.to_smt2())
        out = _solve(s)
        s.pop()
        return out

    def minimize(self, query: str, variables, *assumptions) -> Outcome:
        """Lexicographically smallest model over `variables` (non-negative bit-vectors), found by
        binary search per variable; each step is an ordinary named check."""
        first = self.check(query, *assumptions)
        if first.status != "sat":
            return first
        fixed = list(assumptions)
        model = first.model
        for k, v in enumerate(variables):
            lo, hi = 0, model.eval(v, model_completion=True).as_long()
            # invariant: some model has v == hi; none has v < lo
            while lo < hi:
                mid = (lo + hi) // 2
                step = self.check(f"{query}.min{k}", *fixed, z3.ULE(v, mid))
                if step.status == "sat":
                    hi = step.model.eval(v, model_completion=True).as_long()
                    model = step.model
                elif step.status == "unsat":
                    lo = mid + 1
                else:
                    return step
            fixed.append(v == hi)
        return self.check(f"{query}.min", *fixed)

    def _dump(self, query: str, text: str):
        os.makedirs(self.dump_dir, exist_ok=True)
        safe = re.sub(r"[^A-Za-z0-9_.+-]", "_", f"{self.name}.{query}")
        with open(os.path.join(self.dump_dir, safe + ".smt2"), "w") as fh:
            fh.write(f"; query {self.name} :: {query}\n{text}")


def quantified_check(name: str, formula, dump_dir: str | None, timeout_ms: int = TIMEOUT_MS) -> Outcome:
    s = z3.Solver()
    s.set("random_seed", 0)
    s.set("timeout", timeout_ms)
    s.add(formula)
    if dump_dir:
        Session(name, dump_dir)._dump("quantified", s.to_smt2())
    return _solve(s)


def _solve(s) -> Outcome:
    global _spent
    if _spent >= TOTAL_BUDGET_S:
        return Outcome("unknown", reason=f"the total solver budget of {TOTAL_BUDGET_S:g} s for this process is spent")
    t0 = time.perf_counter()
    r = s.check()
    _spent += time.perf_counter() - t0
    out = Outcome(str(r))
    if r == z3.sat:
        out.model = s.model()
    elif r == z3.unknown:
        out.reason = s.reason_unknown()
    return out
