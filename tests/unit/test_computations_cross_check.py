"""The computations theorem, where it is asked rather than derived, is answered by z3 and by
enumeration, compared: a disagreement is UNKNOWN, never either engine's verdict."""
import os

from conftest import SPECS

from checker.options import Options
from checker.spec.load import load_spec
from checker.spec.reading import materialize
from checker.theorems import computations
from checker.theorems.registry import spec_theorems

M8N8K4 = os.path.join(SPECS, "m8n8k4.yaml")


def _asked():
    spec = load_spec(M8N8K4)
    return spec_theorems(spec, {f.id: materialize(f) for f in spec.fragments()}, Options(), ("computations",))


def test_asked_the_engines_prove_it():
    got = _asked()
    assert len(got) == 8 and all(r.verdict == "PROVED" for r in got)


def test_an_enumeration_that_disagrees_is_never_a_verdict(monkeypatch):
    real = computations._needs_py

    def forged(*args):
        verdict, witness = real(*args)
        assert verdict == "PROVED"
        return "REFUTED", {"forged": True}

    monkeypatch.setattr(computations, "_needs_py", forged)
    got = _asked()
    assert len(got) == 8
    assert all(r.verdict == "UNKNOWN" and "disagree" in r.message for r in got), [(r.verdict, r.message) for r in got]
