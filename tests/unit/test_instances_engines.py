"""A parametric fragment's instances decided together (checker/properties/instances.py and
checker/smt/instances.py): each engine's family argument stands on its own. z3's answers for the
family are held to enumeration of every instance on its own, on a D layout that is in range at
the largest N but leaves the matrix where N is an odd multiple of 8: z3 must not give the family
(it would prove in-range at N=8), whatever the enumeration's own family argument says."""
import os

from conftest import SPECS

from checker.properties import engine_properties, enumerate as py_engine
from checker.properties.instances import family
from checker.results import PROVED, REFUTED
from checker.smt import instances as smt_instances
from checker.spec.load import load_spec

OLD = "col = ((i >> 2) * 8) + (threadID_in_group * 2) + (i & 0x1)"
SWAPPED = "col = (((i >> 2) ^ (%tid / 32 % 2)) * 8) + (threadID_in_group * 2) + (i & 0x1)"


def _family(tmp_path, edit, monkeypatch):
    # z3's analysis of the largest domain is kept per process: a run before this one that had spent
    # its solver budget kept "does not hold" for the document's D (sound, as each instance is then
    # proved on its own, but not the question asked here)
    monkeypatch.setattr(smt_instances, "_HOLDS", {})
    text = open(os.path.join(SPECS, "m64nNk16.yaml"), encoding="utf-8").read()
    assert text.count(OLD) == 1
    path = tmp_path / "m64nNk16.yaml"
    path.write_text(text.replace(OLD, edit), encoding="utf-8")
    spec = load_spec(str(path))
    f = next(f for f in spec.fragments() if f.id.startswith("D.float["))
    readings = family(spec, f)
    assert readings is not None and len(readings) > 2
    return readings


def _per_instance(readings, prop):
    out = {}
    for r in readings:
        lanes = tuple(range(r.fragment.threads.count))
        out[r.n] = py_engine.decide(r.layout, lanes, r.n, r.fragment.rows, r.fragment.cols, r)[prop][0]
    return out


def test_z3_gives_the_family_where_every_instance_holds(tmp_path, monkeypatch):
    """The control: the document's D, every instance proved, by z3 at once and by enumeration one by one."""
    readings = _family(tmp_path, OLD, monkeypatch)
    props = engine_properties(readings[-1])
    got = smt_instances.prove_every_n("t.ok", readings, props)
    assert got is not None and all(a.verdict == PROVED for answers in got.values() for a in answers.values())
    assert set(_per_instance(readings, "in-range").values()) == {PROVED}


def test_z3_does_not_give_the_family_where_an_instance_leaves_its_matrix(tmp_path, monkeypatch):
    readings = _family(tmp_path, SWAPPED, monkeypatch)
    per = _per_instance(readings, "in-range")
    assert per[readings[-1].n] == PROVED and REFUTED in per.values()  # the largest holds, some N do not
    props = engine_properties(readings[-1])
    assert smt_instances.prove_every_n("t.swapped", readings, props) is None
