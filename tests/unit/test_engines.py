"""Two engines: for every seed fragment and domain, and for mutants, z3 and plain-Python
enumeration give the same verdict and the same smallest witness for every property."""
import glob
import os

import pytest

from conftest import CASES, SPECS

from checker.properties import engine_properties, enumerate as py_engine, get
from checker.properties.chunk import sparse_ranges
from checker.smt import properties as smt_engine
from checker.spec.load import load_spec
from checker.spec.reading import materialize
from checker.results import PROVED, REFUTED, UNKNOWN  # noqa: F401 - the engines' verdicts

FILES = sorted(glob.glob(os.path.join(SPECS, "m*.yaml"))) + sorted(glob.glob(os.path.join(CASES, "mutants", "*", "*.yaml")))


def _readings():
    for path in FILES:
        for fragment in load_spec(path).fragments():
            reading = materialize(fragment)
            yield path, fragment, reading
            for e in fragment.errata:
                printed = materialize(fragment, e, reading.n)
                if printed.layout is not None:
                    yield path, fragment, printed


CASES_ = list(_readings())


@pytest.mark.parametrize("path,fragment,reading", CASES_,
                         ids=[f"{os.path.basename(os.path.dirname(p))}/{os.path.basename(p)}:{f.id}"
                              f"{':printed' if r.reverted else ''}" for p, f, r in CASES_])
def test_engines_agree(path, fragment, reading):
    sym = smt_engine.Symbolic(reading.layout, reading.width)
    for comp, lanes in fragment.domains():
        py = py_engine.decide_reading(reading, lanes)
        hint = py["covers"][1].cell if py["covers"][0] == REFUTED else None
        z3 = smt_engine.prove("t", sym, lanes, reading.n, fragment.rows, fragment.cols, engine_properties(reading),
                              hole_hint=hint,
                              sparse=sparse_ranges(reading))
        assert set(z3) == set(py)
        for prop, answer in z3.items():
            assert answer.verdict != UNKNOWN, (prop, answer.reason)
            assert (answer.verdict, answer.witness) == py[prop], (comp, prop)


def test_both_verdicts_occur():
    """The agreement above is not vacuous: refutations are among the compared cases."""
    verdicts = set()
    for _, fragment, reading in CASES_:
        for comp, lanes in fragment.domains():
            py = py_engine.decide_reading(reading, lanes)
            verdicts |= {(p, v) for p, (v, _) in py.items()}
    for prop in ("defined", "in-range", "injective", "covers", "chunk"):
        assert (prop, PROVED) in verdicts and (prop, REFUTED) in verdicts, prop


def test_covers_without_hint_uses_z3_alone():
    """Without an enumerated hole, z3 still refutes covers by itself (quantified query)."""
    path = os.path.join(CASES, "mutants", "covers-fewer-points", "m8n8k32.yaml")
    fragment = load_spec(path).fragment("C.s32")
    reading = materialize(fragment)
    sym = smt_engine.Symbolic(reading.layout, reading.width)
    prover = smt_engine.FragmentProver("t", sym, tuple(range(32)), reading.n, fragment.rows, fragment.cols,
                                       engine_properties(reading))
    answer = get("covers").quantified(prover)
    assert answer.verdict == REFUTED
    r, c = answer.witness.cell
    table = py_engine.table(reading.layout, tuple(range(32)), reading.n)
    assert (r, c) not in py_engine.image(table)
