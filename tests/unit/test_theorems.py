"""Cross-layout theorems and relations: each seen holding on the seeds, each seen failing on a
mutated spec or a false relation, and z3 agreeing with enumeration on every equation."""
import json
import os
import shutil

import pytest
import yaml

from conftest import SPECS

from checker.prover import Options
from checker.spec.load import load_spec
from checker.spec.reading import materialize
from checker.theorems.registry import spec_theorems
from checker.smt import equation as smt_equation
from checker.theorems import equation as py_equation
from checker.theorems.relations import load_relations
from checker.results import PROVED, REFUTED, UNKNOWN

RELATIONS = os.path.join(SPECS, "relations.yaml")
THEOREMS = ("dimensions", "computations", "shared-layout", "packing", "relation", "same-as", "words", "provenance",
            "composition", "containers", "warpgroup", "scale-rows")  # provenance, composition: ldmatrix & co.
# (tests/unit/test_provenance_theorem.py, test_ldmatrix.py); scale-rows: mma with block scaling (test_block_scale.py);
# containers: ldmatrix .b8x16 against mma .kind::f8f6f4 (tests/unit/test_containers.py); warpgroup: wgmma (test_wgmma.py)


@pytest.fixture(scope="module")
def seed_results():
    import io

    from checker.cli import main

    out = io.StringIO()
    assert main(["prove", SPECS, "--format", "json"], out, io.StringIO()) == 0
    return json.loads(out.getvalue())["results"]


def test_every_theorem_family_is_proved_on_the_seeds(seed_results):
    theorems = [x for x in seed_results if x["subject"] is not None and not x["erratum"]]  # errata of titles aside
    assert {x["property"] for x in theorems} == set(THEOREMS)
    assert all(x["verdict"] == "PROVED" or x["declared"] for x in theorems)
    # the m8n8k4 .f16 computations theorem: every held operand against both accumulators
    comps = {x["subject"] for x in theorems if x["property"] == "computations"}
    assert comps == {f"{op}.f16.{lay} for C.{acc}" for op in "AB" for lay in ("row", "col") for acc in ("f16", "f32")}


def test_packing_facts_say_what_a_load_fills(seed_results):
    facts = [(x["subject"], x["message"]) for x in seed_results if x["property"] == "packing"]
    m16_c = [m for s, m in facts if s.startswith("C.float as f32")]
    assert any("0->1, 2->3 continue one run along N; 1->2 do not" in m and "64 bits" in m for m in m16_c)
    assert any("adjacent along K" in m for s, m in facts if s.startswith("A.f16 as f16/bf16"))
    assert any("128 bits" in m for s, m in facts if s.startswith("C.f16 as f16 (4 x .f16x2)"))


def test_declared_non_relations_are_refuted_with_a_counterexample(seed_results):
    declared = [x for x in seed_results if x["declared"]]
    assert {x["subject"] for x in declared} == {
        "ldmatrix-blocks/m8n8k4/A.f16.row", "ldmatrix-blocks/m8n8k4/A.f16.col", "ldmatrix-blocks/m8n8k4/B.f16.row",
        "ldmatrix-blocks/m8n8k4/B.f16.col", "accumulators/m8n8k4/f16-vs-f32", "words/m16n8k8/A.tf32-vs-A.f16",
        "ldmatrix.x2/m16n8k16/B.f16-k-major-is-not", "movmatrix/is-not-a-no-op",  # compositions (test_ldmatrix.py)
        "e2m1/b4x16_p64",  # containers, of ldmatrix.m8n16 and ldmatrix.m16n16 (test_containers.py)
        "d-to-a-reuse: D.f32[N=256] to m64nNk8/A.tf32"}  # wgmma (test_wgmma.py)
    acc = next(x for x in declared if x["subject"] == "accumulators/m8n8k4/f16-vs-f32")
    # how the two accumulator layouts differ, exactly
    assert "128 of 256 points give different cells" in acc["message"]
    assert "0 of 32 lanes hold the same set of cells" in acc["message"]
    assert "4 of 4 MMA computations hold the same set of cells" in acc["message"]
    assert acc["counterexample"]["left"]["cell"] != acc["counterexample"]["right"]["cell"]


@pytest.mark.parametrize("rel", load_relations(RELATIONS), ids=lambda r: r.id)
def test_engines_agree_on_every_relation(rel):
    eq = rel.equation
    z3_answer = smt_equation.prove(eq, py_equation.width(eq))
    assert (z3_answer.verdict, z3_answer.witness) == py_equation.evaluate(eq)
    assert z3_answer.verdict == (PROVED if rel.expect == "holds" else REFUTED)


def _relations_dir(tmp_path, relations):
    for name in os.listdir(SPECS):
        if name.startswith("m") and name.endswith(".yaml"):
            shutil.copy(os.path.join(SPECS, name), tmp_path / name)
    path = tmp_path / "relations.yaml"
    data = json.loads(json.dumps({"schema": "ptx-fragment-checker/relations/1", "relations": relations}))
    path.write_text(yaml.safe_dump(data, sort_keys=False))  # copied first: shared objects would become aliases
    return str(path)


REUSE = {"id": "c-to-a-reuse", "statement": "x", "rests_on": ["9.7.14.5.8"], "expect": "holds",
         "for": {"j": [0, 1], "i": [0, 3]},
         "left": {"fragment": "m16n8k16/A.f16", "element": "4 * j + i"},
         "right": {"fragment": "m16n8k16/C.float", "element": "i", "col": "col + 8 * j"}}


def test_a_false_relation_is_refuted_with_a_counterexample(run, tmp_path):
    false = dict(REUSE, id="reuse-without-the-tile-shift", right=dict(REUSE["right"], col="col"))
    path = _relations_dir(tmp_path, [REUSE, false])
    r = run("prove", path, "--format", "json")
    assert r.code == 1
    res = {x["subject"]: x for x in json.loads(r.out)["results"]}
    assert res["c-to-a-reuse"]["verdict"] == "PROVED"
    bad = res["reuse-without-the-tile-shift"]
    assert bad["verdict"] == "REFUTED" and not bad["declared"]
    # the smallest point: lane 0, j = 1, i = 0: a4 is A[0][8], c0 is C[0][0]
    assert bad["counterexample"]["point"] == {"lane": 0, "j": 1, "i": 0}
    assert bad["counterexample"]["left"] == {"lane": 0, "i": 4, "cell": [0, 8]}
    assert bad["counterexample"]["right"]["cell"] == [0, 0]
    line = open(path).read().splitlines().index("- id: reuse-without-the-tile-shift") + 1
    assert bad["location"] == f"{path}:{line}:3"
    text = run("prove", path)
    assert f"{path}:{line}:3: error: relation reuse-without-the-tile-shift refuted: does not hold: at %laneid = 0" in text.out


def test_a_relation_declared_refuted_that_holds_fails(run, tmp_path):
    path = _relations_dir(tmp_path, [dict(REUSE, expect="refuted")])
    r = run("prove", path, "--format", "json")
    assert r.code == 1
    # the relations file's scope also proves the specs it names: the relation is the one result of its kind
    (x,) = [y for y in json.loads(r.out)["results"] if y["property"] == "relation"]
    assert x["verdict"] == "REFUTED" and "expected to be refuted, but it holds" in x["message"]


FALSE = dict(REUSE, id="reuse-without-the-tile-shift", expect="refuted", right=dict(REUSE["right"], col="col"))


@pytest.mark.parametrize("witness, declared, said", [
    ({"lane": 0, "j": 1, "i": 0}, True, "refuted as declared"),
    (None, False, "refuted, as declared, but it names no witness: give the smallest point it is refuted at, "
                  "witness: {lane: 0, j: 1, i: 0}"),
    ({"lane": 0, "j": 1, "i": 1}, False, "refuted, as declared, but at {lane: 0, j: 1, i: 0}, not at its witness")])
def test_a_relation_declared_refuted_is_refuted_at_its_witness(run, tmp_path, witness, declared, said):
    """A declared refutation stayed one under almost any edit of its sides (a lane or an element
    changed): the smallest point it fails at, named, says it still fails for its reason."""
    rel = dict(FALSE, witness=witness, differs=128) if witness else dict(FALSE, differs=128)
    path = _relations_dir(tmp_path, [rel])
    r = run("prove", path, "--format", "json")
    (x,) = [y for y in json.loads(r.out)["results"] if y["property"] == "relation"]
    assert x["verdict"] == "REFUTED" and x["declared"] is declared and said in x["message"], x["message"]
    assert r.code == (0 if declared else 1)


@pytest.mark.parametrize("rel, message", [
    (dict(REUSE, witness={"lane": 0, "j": 0, "i": 0}), "a relation expected to hold is refuted nowhere: witness: "
                                                       "goes with expect: refuted"),
    (dict(FALSE, witness={"lane": 0, "j": 1}), "a witness names lane, j, i (the lane and the for: variables), not lane, j")])
def test_a_witness_that_cannot_be_one_is_a_spec_error(run, tmp_path, rel, message):
    path = _relations_dir(tmp_path, [rel])
    r = run("prove", path)
    assert r.code == 3 and message in r.out + r.err, r.out + r.err


@pytest.mark.parametrize("change, message", [
    ({"left": {"fragment": "m16n8k16/A.f17", "element": "i"}}, "m16n8k16 has no fragment 'A.f17'"),
    ({"left": {"fragment": "m99n8k16/A.f16", "element": "i"}}, "no spec m99n8k16.yaml"),
    ({"left": {"fragment": "m16n8k16/A.f16", "element": "4 * k"}}, "unknown name 'k'"),
    ({"left": {"fragment": "m16n8k16/A.f16", "element": "row"}}, "unknown name 'row'"),
    ({"left": {"fragment": "m16n8k16/A.f16", "element": "(4 * j"}}, "cannot parse expression"),
    ({"for": {"row": [0, 1]}}, "'row' cannot be a variable"),
    ({"for": {"j": [3, 1]}}, "is empty"),
    ({"colour": "red"}, "unknown key 'colour'"),
])
def test_malformed_relations_are_located_errors(run, tmp_path, change, message):
    path = _relations_dir(tmp_path, [dict(REUSE, **change)])
    r = run("prove", path)
    assert r.code == 3, r.out + r.err
    assert message in r.out + r.err
    assert f"{path}:" in r.out + r.err
    assert "Traceback" not in r.out + r.err


@pytest.mark.parametrize("expect", ["holds", "refuted"])
@pytest.mark.parametrize("left, message", ids=["element", "lane"], argvalues=[
    ({"fragment": "m16n8k16/A.f16", "element": "4 * j + i + 1"},
     "cannot hold: at %laneid = 0, j = 1, i = 3: m16n8k16/A.f16 has no element a8: its element list gives a0..a7 "
     "(8 elements)"),
    ({"fragment": "m16n8k16/A.f16", "element": "i", "lane": "%laneid + 1"},
     "cannot hold: at %laneid = 31, j = 0, i = 0: m16n8k16/A.f16 has no lane 32: its lanes are 0..31"),
])
def test_a_relation_that_reads_past_a_fragment_is_refuted_at_its_line(run, tmp_path, left, message, expect):
    """A side that reads an element or lane its fragment lacks cannot hold there, whatever the
    cells (z3's macros would give a cell for any i): refuted at the smallest such point, never
    a refutation as declared, and never an exception out of the proof."""
    path = _relations_dir(tmp_path, [dict(REUSE, left=left, expect=expect)])
    r = run("prove", path, "--format", "json")
    assert r.code == 1, r.out + r.err
    (x,) = [y for y in json.loads(r.out)["results"] if y["property"] == "relation"]
    assert x["verdict"] == "REFUTED" and not x["declared"]
    assert x["message"] == message
    # the relations file alone was given: the relation is the suspect, at its line
    line = open(path).read().splitlines().index("- id: c-to-a-reuse") + 1
    assert x["location"] == f"{path}:{line}:3"


def test_a_dropped_element_refutes_what_reads_it_at_the_edit_in_every_process(run, tmp_path):
    """m16n8k16's A.f16 list cut to a0..a6: the wgmma a-stacked theorem, the ldmatrix composition
    and three relations read a7. Each is a refutation at the edited line (raised from a worker,
    it ended the proof with one line and an exit code that said which process took the task)."""
    for name in os.listdir(SPECS):
        if name.endswith(".yaml"):
            shutil.copy(os.path.join(SPECS, name), tmp_path / name)
    spec = tmp_path / "m16n8k16.yaml"
    lines = spec.read_text().splitlines(keepends=True)
    assert lines[23] == "            elements: a0, a1, a2, a3, a4, a5, a6, a7\n"
    lines[23] = lines[23].replace(", a7", "")
    spec.write_text("".join(lines))
    answers = []
    for jobs in ("1", "2"):
        r = run("prove", str(spec), "--jobs", jobs, "--format", "json")
        assert r.code == 1, r.out + r.err
        got = json.loads(r.out)
        answers.append(sorted((x["location"], x["property"], x["subject"] or x["fragment"], x["message"])
                              for x in got["results"] if x["verdict"] != "PROVED" and not x["erratum"]
                              and not x["declared"]))
    assert answers[0] == answers[1]
    failed = {(prop, subject): (at, message) for at, prop, subject, message in answers[0]}
    assert failed[("fragment-shape", "A.f16")][0] == f"{spec}:21:13"
    at, message = failed[("warpgroup", "a-stacked: A.f16 and m16n8k16/A.f16")]
    assert at == f"{spec}:24:23"
    assert message == ("cannot hold: at %tid = 0, i = 7: m16n8k16/A.f16 has no element a7: its element list gives "
                       "a0..a6 (7 elements)")
    assert failed[("relation", "c-to-a-reuse/m16n8k16")][0] == f"{spec}:24:23"
    assert failed[("composition", "ldmatrix.x4/m16n8k16/A.f16")][0] == f"{spec}:24:23"
    assert all(prop != "load" for _, prop, _, _ in answers[0])


def test_duplicate_relation_ids_are_rejected(run, tmp_path):
    path = _relations_dir(tmp_path, [REUSE, REUSE])
    r = run("validate", path)
    assert r.code == 3 and "duplicate relation id 'c-to-a-reuse'" in r.err


def test_relations_schema_is_the_one_editors_use():
    from importlib import resources

    packaged = json.loads(resources.files("checker.spec").joinpath("relations.schema.json").read_text())
    with open(os.path.join(SPECS, "schema", "relations.schema.json")) as fh:
        assert json.load(fh) == packaged


def _mutated(tmp_path, name, edit):
    with open(os.path.join(SPECS, name)) as fh:
        text = fh.read()
    out = tmp_path / name
    out.write_text(edit(text))
    return str(out)


def test_computations_theorem_fails_when_the_lanes_table_is_wrong(run, tmp_path):
    # computations 1 and 2 trade lanes 2-3 (and 18-19) for 4-5 (and 20-21). Swapping whole
    # quads would go unseen -- the layouts do not say which computation a quad serves -- but
    # this splits the lanes the .f32 accumulator pairs: lane 0 holds C rows 0 and 2, and the
    # lane holding A row 2 is now in computation 2.
    # (the printed sentences changed with them: lanes that are not the sentence's are refused first)
    path = _mutated(tmp_path, "m8n8k4.yaml", lambda t: t.replace(
        "lanes: [[0, 3], [16, 19]]", "lanes: [[0, 1], [4, 5], [16, 17], [20, 21]]").replace(
        "lanes: [[4, 7], [20, 23]]", "lanes: [[2, 3], [6, 7], [18, 19], [22, 23]]").replace(
        "`%laneid` 0-3 (low group) and 16-19 (high group)", "`%laneid` 0-1, 4-5, 16-17 and 20-21").replace(
        "`%laneid` 4-7 (low group) and 20-23 (high group)", "`%laneid` 2-3, 6-7, 18-19 and 22-23"))
    r = run("prove", path, "--format", "json")
    assert r.code == 1
    bad = [x for x in json.loads(r.out)["results"] if x["property"] == "computations" and x["verdict"] == "REFUTED"]
    subjects = {x["subject"]: x for x in bad}
    assert "A.f16.row for C.f16" not in subjects  # .f16 C rows follow A's rows lane by lane: still fine
    assert subjects["A.f16.row for C.f32"]["message"] == ("computation 1: lane 0 c2 needs A[2][0] (its row, k = 0), which no lane of the "
                                 "computation (0-1,4-5,16-17,20-21) holds")
    # A's covers fails per computation here, so the theorem is not derived: both engines are asked
    proved = [x for x in json.loads(r.out)["results"] if x["property"] == "computations" and x["verdict"] == "PROVED"]
    assert any(x["subject"] == "A.f16.row for C.f16" and "derived" not in x["message"] for x in proved)


def test_computations_theorem_derived_where_the_fragments_settle_it_agrees_with_both_engines(run):
    """Proved fragments settle it (covers of the held operand, defined and in-range of C/D, per
    computation); asked of z3 and enumeration instead, every pair gets the same verdict."""
    path = os.path.join(SPECS, "m8n8k4.yaml")
    derived = [x for x in json.loads(run("prove", path, "--format", "json").out)["results"]
               if x["property"] == "computations"]
    assert len(derived) == 8 and all(x["verdict"] == "PROVED" and "derived from covers" in x["message"] for x in derived)
    spec = load_spec(path)
    asked = spec_theorems(spec, {f.id: materialize(f) for f in spec.fragments()}, Options(), ("computations",))
    assert sorted((x.subject, x.verdict) for x in asked) == sorted((x["subject"], x["verdict"]) for x in derived)
    assert not any("derived" in x.message for x in asked)


def test_dimensions_theorem_fails_when_d_has_no_layout(run, tmp_path):
    path = _mutated(tmp_path, "m8n8k32.yaml", lambda t: t.replace("header: .ctype / .dtype", "header: .ctype"))
    r = run("prove", path, "--format", "json")
    assert r.code == 1
    (bad,) = [x for x in json.loads(r.out)["results"] if x["property"] == "dimensions"]
    assert bad["verdict"] == "REFUTED" and "the document gives D no layout" in bad["message"]


def test_shared_layout_theorem_fails_when_table_rows_name_other_elements(run, tmp_path):
    def edit(t):
        head, sep, tail = t.partition("- types: [e4m3, e5m2]")
        return head + sep + tail.replace("elements: a0, a1, a2, a3, a4, a5, a6, a7", "elements: a0, a1, a2, a3", 1)
    path = _mutated(tmp_path, "m16n8k16.yaml", edit)
    r = run("prove", path, "--format", "json")
    assert r.code == 1
    bad = [x for x in json.loads(r.out)["results"] if x["property"] == "shared-layout" and x["verdict"] == "REFUTED"]
    assert [x["subject"] for x in bad] == ["A.i8"]
    # where the lists part, not only their lengths: a swap of two names kept "(4 vs 4)"
    assert bad[0]["message"].endswith("table row of e4m3/e5m2 names no element as element 4, where the u8/s8 row names a4")
    path = _mutated(tmp_path, "m16n8k16.yaml", lambda t: t.replace("elements: c0, c1, c2, c3\n", "elements: c0, c1, c3, c2\n", 1))
    bad = [x for x in json.loads(run("prove", path, "--format", "json").out)["results"]
           if x["property"] == "shared-layout" and x["verdict"] == "REFUTED"]
    assert bad[0]["message"].endswith("table row of f32 names c2 as element 2, where the f64 row names c3"), bad[0]["message"]


def test_engine_disagreement_is_unknown_never_proved(monkeypatch, tmp_path):
    from checker.theorems import run as theorem_run

    rel = load_relations(RELATIONS)[0]
    monkeypatch.setattr(theorem_run.py_equation, "evaluate", lambda eq: (REFUTED, {"point": {}}))
    r = theorem_run.equation_result(rel.equation, Options(), RELATIONS, "relation", rel.id, "x")
    assert r.verdict == UNKNOWN and "disagree" in r.message


def test_docs_proofs_counts_the_relations():
    """docs/proofs.md counts relations.yaml's relations by what they read: the seeds' alone, the
    rest of the chapter's, the sparse ones (it said 30 where there are 31)."""
    from conftest import ROOT

    seeds = {"m8n8k4", "m8n8k32", "m16n8k16", "m16n8k256"}
    rels = load_relations(RELATIONS)
    sparse = [r for r in rels if r.id.startswith("sparse/")]
    mine = [r for r in rels if {r.equation.left.name.split("/")[0], r.equation.right.name.split("/")[0]} <= seeds]
    rest = len(rels) - len(mine) - len(sparse)
    doc = " ".join(open(os.path.join(ROOT, "docs", "proofs.md"), encoding="utf-8").read().split())
    assert f"The {len(mine)} relations of the seeds," in doc and f"And {rest} more for the rest of the chapter" in doc
    assert f"besides the {len(sparse)} `sparse/...` relations above, {len(rels)} in all" in doc


def test_a_broken_spec_beside_is_one_error_of_its_own_and_one_of_the_theorem_it_stops(tmp_path, run):
    """m64nNk8's warpgroup theorems read m16n8k8 beside it: its load error was reported twice as
    m16n8k8's own (two identical lines, two spec errors); the theorem's says which theorem it stops."""
    folder = tmp_path / "specs"
    shutil.copytree(SPECS, folder)
    path = folder / "m16n8k8.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("shape: m16n8k8\n", "shape: m16n8k8\nbogus: 1\n", 1),
                    encoding="utf-8")
    r = run("prove", str(folder), "--no-cache", "--format", "json")
    assert r.code == 3
    mine = [x for x in json.loads(r.out)["results"] if "bogus" in x["message"]]
    assert sorted((os.path.basename(x["spec"]), x["property"], x["verdict"]) for x in mine) == [
        ("m16n8k8.yaml", "load", "SPEC_ERROR"), ("m64nNk8.yaml", "warpgroup", "SPEC_ERROR"),
        ("relations.yaml", "load", "SPEC_ERROR")]
    assert all(x["location"] == f"{path}:4:1" for x in mine)
    assert [x["message"][:13] for x in mine if x["property"] == "warpgroup"] == ["not checked: "]


@pytest.mark.parametrize("lanes, variables", [
    (tuple(range(128)), (("i", tuple(range(128))),)),  # a warpgroup's 16384 points
    ((0, 1, 2), (("j", (0, 1)), ("i", (5, 6, 7)))),
    ((3, 1), (("e", (4, 2, 9)),)),  # values in no order: the order given
    ((0,), ()),
    ((0, 1), (("e", ()),)),  # no points
])
def test_an_equations_columns_are_its_points(lanes, variables):
    """The plain-Python engine reads an equation's domain as columns made without the points (the
    lane slowest, then the variables in their order); a witness is the point at the first index
    that differs. Both must be Equation.points(), in its order."""
    eq = py_equation.Equation("x", variables, lanes, None, None, None)
    size, names, env = py_equation._environment(eq)
    points = list(eq.points())
    assert size == len(points) == eq.size()
    assert [tuple(env[n][k] for n in names) for k in range(size)] == points
    assert all(py_equation._at(names, env, k) == p for k, p in enumerate(points))
