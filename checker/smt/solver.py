"""z3 through its SMT-LIB 2 command interpreter: every query named, seeded, resource-bounded and
dumpable.

Queries are written as SMT-LIB text and run in one z3 context per process. Building terms through
z3's Python API costs several foreign calls and objects per node, which made it the largest cost
of a proof; text costs a string per node, and z3 parses it in C++. Definitions (a layout's
`define-fun` macros, the variables) live at the interpreter's top level and are sent once, before
the first query that uses them; each query is one push/pop scope, so nothing it asserts outlives
it.
"""
from __future__ import annotations

import contextlib
import os
import re
import time
from dataclasses import dataclass, field

from checker.smt.libz3 import context


# Each query is bounded by z3's resource limit rather than a clock: the bound is the same on every
# machine, so a verdict cannot turn unknown on a slower one, and no timer thread is started per
# query (that cost a tenth of the solving time). The largest query of the whole chapter uses
# about 13 thousand units; 10 million is about 4 s of this machine's solving.
RLIMIT = 10_000_000
# A pull request's spec may be built to make every query slow within its own limit: the solver
# time of one run (a command, a call of the API) is bounded too, after which every query answers
# unknown (never a pass). It is CPU time, not the clock's: measured by the clock, a large but
# honest question (a 16384-entry table against wgmma D at N=256, about 54 s) could run out of it
# on a machine other jobs load, and come back undecided.
TOTAL_BUDGET_S = 120.0
_spent = 0.0
_runs = 0  # runs under way in this process: a run inside another spends the outer one's budget


@contextlib.contextmanager
def run_budget():
    """One run's solver budget. Per run, not per process: a process that lives on (a notebook
    calling checker.prove, the tests' in-process CLI) spent it once and then answered unknown to
    every query of every later run. Forked workers inherit what their run has spent."""
    global _spent, _runs
    if _runs == 0:
        _spent = 0.0
    _runs += 1
    try:
        yield
    finally:
        _runs -= 1


def bv(value: int, width: int) -> str:
    """A bit-vector literal; negative values in two's complement, as the signed operators read them."""
    return f"(_ bv{value % (1 << width)} {width})"


class Var:
    """A top-level bit-vector constant; its text is its quoted symbol."""

    def __init__(self, name: str, width: int):
        self.width = width
        self.text = f"|{name}.{width}|"
        define(self.text, f"(declare-fun {self.text} () (_ BitVec {width}))")

    def __str__(self):
        return self.text


_SYMBOL = re.compile(r"\|[^|]*\|")
# quoted symbol -> (order, command, the symbols it uses): every definition made in this process
_DEFINED: dict = {}


def define(symbol: str, command: str):
    """Record a top-level declaration or definition; an interpreter runs it before the first
    query that uses it."""
    if symbol not in _DEFINED:
        _DEFINED[symbol] = (len(_DEFINED), command, frozenset(_SYMBOL.findall(command)) - {symbol})


def _needed(text: str, have=frozenset()) -> list:
    """The definitions `text` uses, transitively, less those in `have`, in the order they were made."""
    need, todo = set(), set(_SYMBOL.findall(text)) - have
    while todo:
        sym = todo.pop()
        if sym in _DEFINED and sym not in need:
            need.add(sym)
            todo |= _DEFINED[sym][2] - need - have
    return sorted(need, key=lambda sym: _DEFINED[sym][0])


def prelude(text: str) -> str:
    """What makes a dumped query a standalone SMT-LIB file."""
    return "\n".join(_DEFINED[sym][1] for sym in _needed(text))


class _Interpreter:
    """A z3 command interpreter and what has been defined in it. Quantifier-free queries run
    under the QF_BV logic, which lets z3 pick its bit-vector solver (about 15 % faster here); the
    one quantified query (covers, when counting cannot decide it) has an interpreter of its own."""

    def __init__(self, logic: str | None):
        self.context = context()
        self.header = (f"(set-logic {logic})\n" if logic else "") + "(set-option :random-seed 0)\n"
        self.sent: set = set()
        self.rlimit = None
        # not in the header (dumps stay plain SMT-LIB): z3 would otherwise catch SIGINT inside a
        # query and answer it `unknown`, so that Ctrl-C gave a result instead of ending the process
        self.run(self.header + "(set-option :ctrl_c false)\n")

    def run(self, text: str) -> str:
        return self.context.run(text)

    def prepare(self, body: str, rlimit: int):
        missing = _needed(body, self.sent)
        if missing:
            self.run("\n".join(_DEFINED[sym][1] for sym in missing))
            self.sent.update(missing)
        if rlimit != self.rlimit:
            self.run(f"(set-option :rlimit {int(rlimit)})")
            self.rlimit = rlimit


_INTERPRETERS: dict = {}


def _interpreter(quantified: bool = False) -> _Interpreter:
    if quantified not in _INTERPRETERS:
        _INTERPRETERS[quantified] = _Interpreter(None if quantified else "QF_BV")
    return _INTERPRETERS[quantified]


@dataclass
class Outcome:
    """One query's status, and the model's values where sat."""

    status: str  # sat | unsat | unknown
    model: dict = field(default_factory=dict)  # term text -> its unsigned value, when sat
    reason: str = ""


def _read(text: str) -> list:
    """An s-expression reader for z3's answers to get-value: nested lists of atoms."""
    stack: list = [[]]
    for tok in re.findall(r"\(|\)|\|[^|]*\||\"[^\"]*\"|[^\s()|\"]+", text):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    return stack[0]


def _value(atom: str) -> int:
    if atom.startswith("#x"):
        return int(atom[2:], 16)
    if atom.startswith("#b"):
        return int(atom[2:], 2)
    return {"true": 1, "false": 0}[atom]


class Session:
    """A named set of facts; each query adds its own and runs in a scope of its own."""

    def __init__(self, name: str, dump_dir: str | None = None, rlimit: int = RLIMIT, quantified: bool = False):
        self.name = name
        self.dump_dir = dump_dir
        self.rlimit = rlimit
        self.quantified = quantified
        self.facts: list = []

    def add(self, *facts):
        self.facts.extend(str(f) for f in facts)

    def check(self, query: str, *assumptions, values=()) -> Outcome:
        """sat, unsat or unknown; when sat, the values of `values` (terms) in z3's model."""
        body = "".join(f"(assert {a})\n" for a in (*self.facts, *map(str, assumptions)))
        if self.dump_dir:
            self._dump(query, body)
        return _solve(body, tuple(str(v) for v in values), self.rlimit, self.quantified)

    def minimize(self, query: str, variables, *assumptions, values=(), expect=None) -> Outcome:
        """Lexicographically smallest model over `variables` (non-negative bit-vectors).

        `expect`: the smallest point the plain-Python engine found. z3 confirms it in two
        queries -- nothing smaller is a model, and it is one -- and falls back to its own search
        when either fails, so a wrong expectation shows as a disagreement, never as an answer.
        Without one, the search is binary per variable, each step an ordinary named check."""
        wanted = tuple(variables) + tuple(values)
        if expect is not None:
            below = self.check(f"{query}.below", *assumptions, _lex_less(variables, expect))
            if below.status == "unsat":
                pin = [f"(= {v} {bv(x, v.width)})" for v, x in zip(variables, expect)]
                at = self.check(f"{query}.at", *assumptions, *pin, values=wanted)
                if at.status == "sat":
                    return at
            if below.status == "unknown":
                return below
        first = self.check(query, *assumptions, values=wanted)
        if first.status != "sat":
            return first
        fixed = list(assumptions)
        model = first.model
        for k, v in enumerate(variables):
            lo, hi = 0, model[str(v)]
            # invariant: some model has v == hi; none has v < lo
            while lo < hi:
                mid = (lo + hi) // 2
                step = self.check(f"{query}.min{k}", *fixed, f"(bvule {v} {bv(mid, v.width)})", values=wanted)
                if step.status == "sat":
                    hi = step.model[str(v)]
                    model = step.model
                elif step.status == "unsat":
                    lo = mid + 1
                else:
                    return step
            fixed.append(f"(= {v} {bv(hi, v.width)})")
        return self.check(f"{query}.min", *fixed, values=wanted)

    def _dump(self, query: str, body: str):
        safe = re.sub(r"[^A-Za-z0-9_.+-]", "_", f"{self.name}.{query}")
        path = os.path.join(self.dump_dir, safe + ".smt2")
        try:
            os.makedirs(self.dump_dir, exist_ok=True)
            with open(path, "w") as fh:
                fh.write(f"; query {self.name} :: {query}\n{_interpreter(self.quantified).header}"
                         f"(set-option :rlimit {self.rlimit})\n{prelude(body)}\n{body}(check-sat)\n")
        except OSError as exc:
            # the folder was checked before the run (checker/outputs.py), but the system may still
            # refuse a write (a full disk, a folder /proc answers for): the user's option, exit 2,
            # not a traceback (one process) nor "a worker process failed" (several)
            from checker.errors import UsageError

            raise UsageError(f"--dump-smt {self.dump_dir}: cannot write {path} "
                             f"({(exc.strerror or str(exc)).lower()})") from None


def _lex_less(variables, point) -> str:
    """(variables) < point, lexicographically, unsigned."""
    terms, same = [], []
    for v, x in zip(variables, point):
        c = bv(x, v.width)
        terms.append(f"(and {' '.join(same)} (bvult {v} {c}))" if same else f"(bvult {v} {c})")
        same.append(f"(= {v} {c})")
    return f"(or {' '.join(terms)})" if len(terms) > 1 else terms[0]


def _solve(body: str, values: tuple, rlimit: int, quantified: bool = False) -> Outcome:
    global _spent
    if _spent >= TOTAL_BUDGET_S:
        return Outcome("unknown", reason=f"the total solver budget of {TOTAL_BUDGET_S:g} s for this run is spent")
    it = _interpreter(quantified)
    it.prepare(body, rlimit)
    t0 = time.process_time()  # z3 solves in this thread: the process's CPU time is its solving
    try:
        status = it.run(f"(push)\n{body}(check-sat)").strip()
        out = Outcome(status)
        if status == "sat" and values:
            answer = _read(it.run(f"(get-value ({' '.join(values)}))"))[0]
            out.model = {term: _value(pair[1]) for term, pair in zip(values, answer)}
        elif status == "unknown":
            reason = _read(it.run("(get-info :reason-unknown)"))[0]
            out.reason = reason[1].strip('"') if len(reason) > 1 else "z3 answered unknown"
        elif status not in ("sat", "unsat"):
            out = Outcome("unknown", reason=f"z3 answered {status!r}")
    finally:
        it.run("(pop)")
        _spent += time.process_time() - t0
    return out
