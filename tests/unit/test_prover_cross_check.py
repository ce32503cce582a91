"""The prover's own cross-check of a fragment's properties (checker/prover.py): where the
plain-Python engine and z3 differ, in the verdict or only in the witness, in either direction,
the fragment's result is the engines' disagreement (UNKNOWN, exit 1), never either engine's
answer; and with z3 unable to answer (the run's solver budget spent) no property z3 decides is
reported proved, through the prover and through `checker prove`."""
import dataclasses
import json
import os

from conftest import CASES, SPECS

from checker import prover
from checker.options import Options
from checker.properties import enumerate as py_engine
from checker.results import PROVED, REFUTED, UNKNOWN
from checker.spec.load import load_spec
from checker.witness import Hole, Pair, Point

SEED = os.path.join(SPECS, "m8n8k32.yaml")  # every fragment proved
MUTANT = os.path.join(CASES, "mutants", "injective-mask", "m16n8k256.yaml")  # B.b1: injective refuted


def _forging(monkeypatch, forge):
    """The prover's enumeration, its answers passed through `forge(answers) -> answers`."""
    real = py_engine.decide_reading

    def decide_reading(reading, lanes):
        return forge(dict(real(reading, lanes)))

    monkeypatch.setattr(prover.py_engine, "decide_reading", decide_reading)


def _prove(path, fid):
    spec = load_spec(path)
    return prover.prove_fragment(spec, spec.fragment(fid), Options(cross_check=True))


def _is_disagreement(results):
    assert [(r.property, r.verdict) for r in results] == [("engines", UNKNOWN)], \
        [(r.property, r.verdict, r.message) for r in results]
    assert "disagree" in results[0].message and results[0].failed()


def test_the_real_engines_agree_on_these_fragments():
    """The control: unforged, the seed is proved and the mutant refuted, no disagreement."""
    seed = _prove(SEED, "C.s32")
    assert {r.property for r in seed} >= {"defined", "in-range", "injective", "covers"}
    assert all(r.verdict == PROVED for r in seed)
    mutant = {r.property: r for r in _prove(MUTANT, "B.b1")}
    assert mutant["injective"].verdict == REFUTED and "engines" not in mutant


def test_enumeration_refuting_what_z3_proves_is_a_disagreement(monkeypatch):
    _forging(monkeypatch, lambda a: dict(a, defined=(REFUTED, Point(0, 0))))
    _is_disagreement(_prove(SEED, "C.s32"))


def test_enumeration_proving_what_z3_refutes_is_a_disagreement(monkeypatch):
    _forging(monkeypatch, lambda a: dict(a, injective=(PROVED, None)))
    _is_disagreement(_prove(MUTANT, "B.b1"))


def test_the_same_verdict_at_another_witness_is_a_disagreement(monkeypatch):
    """Both engines refute injective, but enumeration names a clash that is not the smallest:
    the engines are compared point for point, not on their verdicts alone."""
    def later(a):
        verdict, w = a["injective"]
        assert verdict == REFUTED and isinstance(w, Pair)
        return dict(a, injective=(REFUTED, dataclasses.replace(w, lane=w.lane + 1, lane2=w.lane2 + 1)))

    _forging(monkeypatch, later)
    _is_disagreement(_prove(MUTANT, "B.b1"))


def test_a_disagreement_fails_checker_prove(run, monkeypatch):
    _forging(monkeypatch, lambda a: dict(a, covers=(REFUTED, Hole((0, 0)))))
    r = run("prove", SEED, "--jobs", "1", "--no-cache", "--format", "json")
    assert r.code == 1
    engines = [x for x in json.loads(r.out)["results"] if x["property"] == "engines"]
    assert engines and all(x["verdict"] == "UNKNOWN" and "disagree" in x["message"] for x in engines)


# what needs no solver: the table's shape, the words, the layouts one table shares, the same-as
# names, and packing where a register holds one element (nothing to ask)
WITHOUT_Z3 = {"fragment-shape", "words", "shared-layout", "same-as", "packing"}


def test_nothing_z3_decides_is_proved_once_the_solver_budget_is_spent(run, monkeypatch):
    """Every query answers unknown: the fragments' properties, the relations, dimensions and
    every other theorem z3 decides are UNKNOWN (never PROVED), and the command fails."""
    from checker.smt import solver
    from checker.theorems import warpgroup

    monkeypatch.setattr(solver, "TOTAL_BUDGET_S", 0.0)
    # the wgmma theorems reuse an equation proved earlier in the process (a test before this one):
    # a proof, not an answer to this run's questions
    monkeypatch.setattr(warpgroup, "_PROVED", set())
    r = run("prove", os.path.join(SPECS, "m16n8k256.yaml"), "--jobs", "1", "--no-cache", "--format", "json")
    assert r.code == 1
    results = json.loads(r.out)["results"]
    proved = {x["property"] for x in results if x["verdict"] == "PROVED"}
    assert proved <= WITHOUT_Z3, proved - WITHOUT_Z3
    unknown = {x["property"] for x in results if x["verdict"] == "UNKNOWN"}
    assert {"defined", "in-range", "injective", "covers", "relation", "dimensions"} <= unknown
    # no erratum of a formula is confirmed by an undecided proof of its printed text
    assert not [x for x in results if x["erratum"] and x["property"] in ("defined", "in-range", "injective", "covers")]


def test_nothing_z3_decides_is_proved_by_the_prover_alone(monkeypatch):
    from checker.smt import solver

    monkeypatch.setattr(solver, "_spent", solver.TOTAL_BUDGET_S)
    results = _prove(SEED, "C.s32")
    assert {r.property: r.verdict for r in results if r.property != "fragment-shape"} == {
        "defined": UNKNOWN, "in-range": UNKNOWN, "injective": UNKNOWN, "covers": UNKNOWN}


def test_a_disagreement_leaves_what_is_derived_from_it_unknown_not_refuted(run, monkeypatch):
    """dimensions is derived from the fragments' proofs: where their engines disagreed nothing was
    decided, so neither is dimensions (it was REFUTED, with no counterexample, and counted among
    the refutations)."""
    _forging(monkeypatch, lambda a: dict(a, covers=(REFUTED, Hole((0, 0)))))
    r = run("prove", SEED, "--jobs", "1", "--no-cache", "--format", "json")
    data = json.loads(r.out)
    dims = [x for x in data["results"] if x["property"] == "dimensions"]
    assert dims and all(x["verdict"] == "UNKNOWN" for x in dims), [(x["verdict"], x["message"]) for x in dims]
    assert data["summary"]["refuted"] == 0 and r.code == 1
