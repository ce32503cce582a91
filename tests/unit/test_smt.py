"""The SMT-LIB layer and what makes a cold proof cheap: dumped queries are standalone files
that z3 answers as the run did; the plain-Python engine's witness is confirmed by z3, never taken
on trust; the one query for all point properties gives way to each one when it fails; memoised
parses still locate their errors; the warp table equals direct evaluation; z3 is imported only
under checker/smt/ (its library's binding is held to z3's own answers in test_libz3.py)."""
import dataclasses
import glob
import os
import re

import pytest

from conftest import CASES, ROOT, SPECS

from checker.errors import SpecError
from checker.formula.evaluate import cells, warp_cells
from checker.formula.parser import parse_expr
from checker.properties import engine_properties, enumerate as py_engine, get
from checker.smt import properties as smt_engine
from checker.smt import solver
from checker.smt.libz3 import Z3Error
from checker.smt.symbolic import symbolic
from checker.spec.load import load_spec
from checker.spec.reading import materialize
from checker.source import SourceText
from checker.theorems import equation as py_equation
from checker.theorems.relations import load_relations
from checker.witness import Pair
from checker.smt import equation as smt_equation
from checker.results import PROVED, REFUTED, UNKNOWN

M256 = os.path.join(SPECS, "m16n8k256.yaml")


def _fresh_answer(text: str) -> str:
    """A dumped file run in an interpreter of its own, as `z3 FILE` would run it."""
    return solver._Interpreter(None).run(text).strip().splitlines()[0]


def test_dumps_are_standalone_and_answer_as_the_run_did(tmp_path, run):
    assert run("prove", M256, "--dump-smt", str(tmp_path)).code == 0
    names = sorted(os.listdir(tmp_path))
    answers = {n: _fresh_answer((tmp_path / n).read_text()) for n in names}
    assert set(answers.values()) <= {"sat", "unsat"}
    # the reading's defined, in-range and injective: one unsat query each, no violation of any
    for prop in ("defined", "in-range", "injective"):
        assert answers[f"m16n8k256.A.b1.{prop}.smt2"] == "unsat"
    # the printed A.b1 is refuted at enumeration's witness: nothing below it (unsat), and it is one (sat)
    assert answers["m16n8k256.A.b1.printed.injective.below.smt2"] == "unsat"
    assert answers["m16n8k256.A.b1.printed.injective.at.smt2"] == "sat"
    text = (tmp_path / "m16n8k256.A.b1.injective.smt2").read_text()
    assert "(set-logic QF_BV)" in text and "(define-fun |" in text and text.rstrip().endswith("(check-sat)")


def _refuted_reading():
    path = os.path.join(CASES, "mutants", "injective-mask", "m16n8k256.yaml")
    for fragment in load_spec(path).fragments():
        reading = materialize(fragment)
        py = py_engine.decide_reading(reading, tuple(range(32)))
        if py["injective"][0] == REFUTED:
            return fragment, reading, py
    raise AssertionError("the mutant refutes injective")


def test_a_wrong_expectation_never_becomes_the_answer():
    """z3 confirms enumeration's smallest witness (nothing below it, and it is one); given a point
    that is not the smallest, or not a witness at all, z3 answers with its own smallest, so the
    prover sees the engines disagree."""
    fragment, reading, py = _refuted_reading()
    sym = symbolic(reading.layout, reading.width)
    args = ("t", sym, tuple(range(32)), reading.n, fragment.rows, fragment.cols, engine_properties(reading))
    right = smt_engine.prove(*args, expect=py)["injective"]
    alone = smt_engine.prove(*args)["injective"]
    assert (right.verdict, right.witness) == (alone.verdict, alone.witness) == py["injective"]
    w = py["injective"][1]
    later = dataclasses.replace(w, lane=w.lane + 1)  # not the smallest (and maybe not a clash at all)
    nowhere = Pair(31, reading.n - 1, 31, reading.n - 1, (0, 0))
    earliest = Pair(0, 0, 0, 0, (0, 0))  # nothing is below it, and it is no clash
    for forged in (later, nowhere, earliest):
        got = smt_engine.prove(*args, expect=dict(py, injective=(REFUTED, forged)))["injective"]
        assert (got.verdict, got.witness) == py["injective"]


def test_the_combined_query_gives_way_to_each_property_when_one_fails():
    """Without enumeration's answers, the one query for all properties is asked first; it is sat
    for a mutant that breaks only injective, and then each property is asked on its own: the
    others proved, injective refuted at the smallest clash, as enumeration finds it."""
    fragment, reading, py = _refuted_reading()
    sym = symbolic(reading.layout, reading.width)
    prover = smt_engine.FragmentProver("t", sym, tuple(range(32)), reading.n, fragment.rows, fragment.cols,
                                       engine_properties(reading))
    assert not prover.all_hold()
    got = prover.all(hole_hint=py["covers"][1].cell)
    assert {p: (a.verdict, a.witness) for p, a in got.items()} == py
    assert got["injective"].verdict == REFUTED and got["defined"].verdict == PROVED


def test_a_wrong_expectation_for_an_equation_is_not_the_answer():
    rel = next(r for r in load_relations(os.path.join(SPECS, "relations.yaml")) if r.expect == "refuted")
    eq = rel.equation
    py = py_equation.evaluate(eq)
    assert py[0] == REFUTED
    point = dict(py[1]["point"], lane=31)
    for forged in ((REFUTED, dict(py[1], point=point)), (REFUTED, {"point": {}}), (PROVED, None)):
        got = smt_equation.prove(eq, py_equation.width(eq), expect=forged)
        assert (got.verdict, got.witness) == py


def _src(text: str, line: int) -> SourceText:
    return SourceText(text, "f.yaml", tuple((line, k + 1) for k in range(len(text) + 1)))


def test_memoised_parses_still_locate_their_errors():
    assert parse_expr(_src("e + 1", 3)) == parse_expr(_src("e + 1", 40))  # offsets, not positions
    for line in (7, 70):
        with pytest.raises(SpecError) as exc:
            parse_expr(_src("e + (1", line))
        assert exc.value.span.line == line


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(SPECS, "m*.yaml"))), ids=os.path.basename)
def test_the_warp_table_is_direct_evaluation(path):
    for fragment in load_spec(path).fragments():
        if fragment.formula is None:
            continue
        reading = materialize(fragment)
        pts = [(lane, i) for lane in (31, 0, 7, 16) for i in reversed(range(reading.n))]
        got = warp_cells(reading.layout, reading.n, [p[0] for p in pts], [p[1] for p in pts])
        assert tuple(got) == tuple(cells(reading.layout, pts))


def test_z3_is_imported_only_under_checker_smt():
    imports = re.compile(r"^\s*(import z3|from z3)", re.M)
    offenders = [os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "checker", "**", "*.py"), recursive=True)
                 if imports.search(open(p, encoding="utf-8").read()) and os.sep + "smt" + os.sep not in p]
    assert offenders == []


def test_a_query_past_its_resource_limit_is_unknown_never_proved():
    """Each query is bounded by z3's resource limit (deterministic: the same on every machine)."""
    fragment, reading, _ = _refuted_reading()
    sym = symbolic(reading.layout, reading.width)
    prover = smt_engine.FragmentProver("t", sym, tuple(range(32)), reading.n, fragment.rows, fragment.cols,
                                       engine_properties(reading))
    prover.session.rlimit = 1
    answer = prover.ask(get("injective"))
    assert answer.verdict == UNKNOWN and answer.reason
    prover.session.rlimit = solver.RLIMIT
    assert prover.ask(get("injective")).verdict == REFUTED


def test_a_rejected_command_is_an_error_not_an_exit():
    """z3 rejects the text (a bug in the checker's SMT-LIB, never a verdict): raised as Z3Error, a
    CheckerError, and the interpreter goes on."""
    from checker.errors import CheckerError

    interp = solver._Interpreter("QF_BV")
    with pytest.raises(Z3Error, match="unknown constant y") as exc:
        interp.run("(assert (bvugt y #x02))")
    assert isinstance(exc.value, CheckerError)
    assert interp.run("(check-sat)").strip() == "sat"
