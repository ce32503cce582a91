"""`checker mutate`: the campaign kills what it should, proves the equivalent mutants equal with
z3 and the enumeration, lists every survivor, and keeps the known-gaps list honest."""
import json
import os
import shutil

import pytest

from conftest import ROOT, SPECS

from checker.formula.parser import parse_block
from checker.mutate.operators import mutants
from checker.source import plain
from checker.errors import SourceSpan

GAPS = os.path.join(ROOT, "mutation", "known-gaps.yaml")


@pytest.fixture(scope="module")
def campaign_json():
    import io

    from checker.cli import main

    out = io.StringIO()
    code = main(["mutate", SPECS, "--known-gaps", GAPS, "--format", "json"], out, io.StringIO())
    return code, json.loads(out.getvalue())


def test_every_seed_mutant_is_killed_equivalent_or_a_known_gap(campaign_json):
    code, data = campaign_json
    assert code == 0 and data["unlisted_survivors"] == 0 and data["closed_gaps"] == []
    outcomes = [o for s in data["specs"] for o in s["outcomes"]]
    assert len(outcomes) > 900
    verdicts = {o["verdict"] for o in outcomes}
    # every stage kills something, or the campaign would not show that it can
    assert {"bounds", "defined", "in-range", "injective", "relation", "equivalent", "survivor"} <= verdicts
    assert {o["operator"] for o in outcomes} == {"constant", "operator", "mask", "boundary", "pieces"}
    survivors = [o for o in outcomes if o["verdict"] == "survivor"]
    assert survivors and all(o["by"].startswith("known gap: ") for o in survivors)
    assert all("points give different cells" in o["difference"] for o in survivors)


def test_docs_mutation_quotes_the_campaign(campaign_json):
    """docs/mutation.md's numbers are the campaign's: its table's `all` row over the mma specs, the
    whole catalogue, and the seeds (which said 459 mutants after m16n8k16 gained its sparse A)."""
    import re

    _, data = campaign_json
    doc = " ".join(open(os.path.join(ROOT, "docs", "mutation.md"), encoding="utf-8").read().split())

    def tally(names):
        rows = [s["outcomes"] for s in data["specs"] if os.path.basename(s["spec"])[:-5] in names]
        out = [o for r in rows for o in r]
        eq = sum(o["verdict"] == "equivalent" for o in out)
        alive = sum(o["verdict"] == "survivor" for o in out)
        return len(out), len(out) - eq - alive, len(out) - eq, eq, sum(o["verdict"] == "relation" for o in out)

    every = [os.path.basename(s["spec"])[:-5] for s in data["specs"]]
    mma = [n for n in every if re.fullmatch(r"m(8n8|16n8)k[0-9]+", n)]
    n, killed, live, eq, _ = tally(mma)
    assert f"| all | {n} |" in doc and f"| {eq} | {live - killed} | {killed} of {live} (" in doc, (n, killed, live, eq)
    n, killed, live, eq, _ = tally(every)
    assert f"{n} mutants in all, {killed} of {live} non-equivalent killed" in doc and f"{eq} equivalent" in doc
    n, killed, live, eq, by_relation = tally(["m8n8k4", "m8n8k32", "m16n8k16", "m16n8k256"])
    assert f"{n} mutants, {killed} of {live} killed" in doc and f"The seeds' {eq} equivalent mutants" in doc
    assert f"on the seeds they kill {by_relation} mutants" in doc
    _, _, _, _, by_relation = tally(mma)
    proofs = " ".join(open(os.path.join(ROOT, "docs", "proofs.md"), encoding="utf-8").read().split())
    assert f"counts {by_relation} such kills on the `mma` specs" in proofs  # it said 37


def test_equivalent_mutants_give_the_same_map(campaign_json):
    _, data = campaign_json
    eq = [o for s in data["specs"] for o in s["outcomes"] if o["verdict"] == "equivalent"]
    # B.f16's `i & 0x1` only ever sees i in 0..1 on that piece: dropping the mask changes nothing
    assert any(o["fragment"] == "B.f16" and o["operator"] == "mask" for o in eq)
    assert all(o["difference"] == "" for o in eq)


def test_relations_kill_what_the_fragment_properties_cannot(run, tmp_path):
    """Without relations.yaml beside it (the spec copied alone into a folder: its scope is then
    itself), swapping A.f16's row pieces (groupID <-> groupID + 8) is a bijection no per-fragment
    property or spec theorem rejects; c-to-a-reuse does."""
    shutil.copy(os.path.join(SPECS, "m16n8k16.yaml"), tmp_path)
    alone = run("mutate", str(tmp_path / "m16n8k16.yaml"), "--format", "json", "--jobs", "1")
    assert alone.code == 1
    survivors = [o for s in json.loads(alone.out)["specs"] for o in s["outcomes"] if o["verdict"] == "survivor"]
    assert any(o["fragment"] == "A.f16" and o["operator"] == "pieces" for o in survivors)


def test_an_unlisted_survivor_fails_and_a_closed_gap_fails(run, tmp_path):
    r = run("mutate", os.path.join(SPECS, "m8n8k4.yaml"), "--jobs", "1")
    assert r.code == 1 and "NOT A KNOWN GAP" in r.out and "4 not known gaps" in r.out
    stale = tmp_path / "gaps.yaml"
    stale.write_text(open(GAPS).read() + "- spec: specs/m8n8k4.yaml\n  fragment: C.f64\n  before: x\n"
                     "  after: y\n  closes_it: nothing\n")
    r = run("mutate", os.path.join(SPECS, "m8n8k4.yaml"), "--known-gaps", str(stale), "--jobs", "1")
    assert r.code == 1 and "known gap no longer survives" in r.out


def test_mutate_with_nothing_to_mutate_is_a_usage_error(run):
    r = run("mutate", os.path.join(SPECS, "relations.yaml"))
    assert r.code == 2 and "nothing was checked" in r.err


def test_malformed_gaps_file_is_a_located_error(run, tmp_path):
    bad = tmp_path / "gaps.yaml"
    bad.write_text("gaps:\n  - spec: 1\n")
    r = run("mutate", os.path.join(SPECS, "m8n8k32.yaml"), "--known-gaps", str(bad))
    assert r.code == 3 and f"{bad}:2:" in r.err and "Traceback" not in r.err


def test_campaign_is_deterministic(run):
    def outcomes(jobs):
        r = run("mutate", os.path.join(SPECS, "m8n8k32.yaml"), os.path.join(SPECS, "m16n8k256.yaml"),
                "--format", "json", "--jobs", jobs)
        data = json.loads(r.out)
        data.pop("seconds")
        return data

    assert outcomes("1") == outcomes("2")


def test_operators_are_single_point_and_distinct():
    src = plain("row = groupID + 8 for ai where i >= 4\n    groupID otherwise\ncol = (i & 0x3) + 4 * 2\n",
                SourceSpan("x.yaml", 1, 1))
    ms = mutants(parse_block(src))
    kinds = {m.operator for m in ms}
    assert kinds == {"constant", "operator", "mask", "boundary", "pieces"}
    from checker.formula import printer

    texts = [printer.block(m.block) for m in ms]
    assert len(texts) == len(set(texts))
    assert any("i >= 5" in t for t in texts) and any("i > 4" in t for t in texts)
    assert any("col = i + 4 * 2" in t for t in texts)


def test_total_solver_budget_turns_every_query_unknown(run, monkeypatch):
    """Resource bound: past the run's solver budget nothing is proved; the gate fails."""
    from checker.smt import solver

    monkeypatch.setattr(solver, "TOTAL_BUDGET_S", 0.0)
    r = run("prove", os.path.join(SPECS, "m8n8k32.yaml"), "--jobs", "1", "--format", "json")
    assert r.code == 1
    data = json.loads(r.out)
    # the file's own results (its scope adds the specs and relations beside it: README, what proving a file proves)
    mine = [x for x in data["results"] if x["spec"].endswith("m8n8k32.yaml")]
    assert data["summary"]["unknown"] > 0 and sum(x["verdict"] == "PROVED" for x in mine) < 21
    assert any("total solver budget" in x["message"] for x in data["results"])


def test_prove_is_deterministic_apart_from_timings(run):
    """Two runs of `checker prove specs/`, with one worker and with two: the same results, the same
    counterexamples, the same SARIF, byte for byte once the timings are taken out."""
    import re

    def strip(r):
        return re.sub(r'"(seconds|cross_check_seconds)": [0-9.e-]+', '"seconds": 0', r.out)

    runs = [run("prove", SPECS, "--format", "json", "--jobs", j) for j in ("1", "2", "2")]
    assert all(r.code == 0 for r in runs), [(r.code, r.err[-3000:]) for r in runs]
    assert strip(runs[0]) == strip(runs[1]) == strip(runs[2])
    texts = [re.sub(r"\(\d+\.\d+ s\)", "", run("prove", SPECS).out) for _ in range(2)]
    assert texts[0] == texts[1]


SYNTHETIC = os.path.join(ROOT, "reports", "synthetic")


def test_crosscheck_stage_kills_what_no_theorem_can(run):
    """The four known gaps (m8n8k4 .f16 lane-group swaps of A and B) pass every theorem; a dump of the
    instruction kills each (the predicted D already differs). The synthetic dumps stand in for hardware
    here: they are the reference model run on the committed spec."""
    r = run("mutate", os.path.join(SPECS, "m8n8k4.yaml"), os.path.join(SPECS, "relations.yaml"),
            "--known-gaps", GAPS, "--dumps", SYNTHETIC, "--format", "json")
    data = json.loads(r.out)
    outcomes = data["specs"][0]["outcomes"]
    by_crosscheck = [o for o in outcomes if o["verdict"] == "crosscheck"]
    assert data["dumps"] == {"given": 70, "of_these_specs": 13, "hardware": 0, "synthetic": 13}
    assert len(by_crosscheck) == 4 and not any(o["verdict"] == "survivor" for o in outcomes)
    assert all(o["by"].startswith(("predicts ", "identifies-")) and "synthetic" in o["by"] for o in by_crosscheck)
    # every gap the list names is now closed, so the list is stale and the run fails
    assert r.code == 1 and len(data["closed_gaps"]) == 4


def test_crosscheck_stage_with_no_dump_checks_nothing_and_says_so(run, tmp_path):
    r = run("mutate", os.path.join(SPECS, "m8n8k32.yaml"), "--dumps", str(tmp_path))
    assert r.code == 0 and "crosscheck stage: no probe dump" in r.out and "it checked nothing" in r.out


def test_a_dump_the_spec_itself_disagrees_with_stops_the_campaign(run, tmp_path):
    """A mutant that every theorem accepts, written into the spec: the dumps of the committed spec
    now disagree with it, so measuring mutants against them would be meaningless."""
    text = open(os.path.join(SPECS, "m8n8k4.yaml")).read()
    before = ("row =            %laneid % 4          if %laneid < 16\n"
              "                          (%laneid % 4) + 4     otherwise")
    assert before in text, "the m8n8k4 A.f16.row formula moved"
    spec = tmp_path / "m8n8k4.yaml"
    spec.write_text(text.replace(before, "row =            (%laneid % 4) + 4    if %laneid < 16\n"
                                         "                          %laneid % 4           otherwise", 1))
    assert run("prove", str(spec)).code == 0  # every theorem holds
    r = run("mutate", str(spec), "--dumps", SYNTHETIC, "--jobs", "1")
    assert r.code == 1 and "itself disagrees with the dump" in r.err and ".dump.json.gz" in r.err
    assert f"{spec}:" in r.err and "Traceback" not in r.err


def test_a_warpgroup_mutant_that_differs_only_past_warp_0_is_not_equivalent(tmp_path):
    """The equivalence of a mutant is asked over every thread that holds the fragment: a wgmma
    mutant that keeps warps 0 and 1 and moves warps 2 and 3 is not the same map (asked over a
    warp's 32 lanes, as it once was, it would pass for equivalent and never count as a survivor)."""
    from checker.loading import load
    from checker.mutate.campaign import _equivalence
    from checker.spec.reading import materialize

    text = open(os.path.join(SPECS, "m64nNk16.yaml"), encoding="utf-8").read()
    assert text.count("warpID = %tid / 32\n") >= 1
    path = tmp_path / "m64nNk16.yaml"
    path.write_text(text.replace("warpID = %tid / 32\n", "warpID = (%tid / 32) & 1\n", 1))
    spec, _ = load(os.path.join(SPECS, "m64nNk16.yaml"))
    mutant, _ = load(str(path))
    f, g = spec.fragment("A.f16"), mutant.fragment("A.f16")
    same, difference = _equivalence(materialize(f), materialize(g), f)
    assert not same and difference


def test_the_stages_are_the_registries(tmp_path, run):
    """The campaign's stages are the property registry's and the theorem families', so a verdict
    always has its column: a mutant of ldmatrix.m8n8 that no property of the fragment kills (its
    r.x4 column written in two pieces, the pieces swapped: still a bijection) is counted under the
    first theorem family that does, `provenance` (the CuTe atom its read_from names; the
    composition with mma kills it too, one stage later); a hand-kept list once lacked such a
    family (KeyError: 'composition')."""
    from checker.mutate.campaign import ORDER
    from checker.properties import engine_properties
    from checker.theorems.registry import FAMILIES

    assert {p.name for p in engine_properties()} | set(FAMILIES) <= set(ORDER)
    text = open(os.path.join(SPECS, "ldmatrix.m8n8.yaml"), encoding="utf-8").read()
    before = ("            col = (%laneid % 4) * 2 + (i & 0x1)\n"
              "          read_from:\n            - \"CuTe SM75_U32x4_LDSM_N\"")
    assert text.count(before) == 1, "the ldmatrix.m8n8 r.x4 formula moved"
    (tmp_path / "ldmatrix.m8n8.yaml").write_text(text.replace(before, (
        "            col = (%laneid % 4) * 2       if (i & 0x1) = 0\n"
        "                  (%laneid % 4) * 2 + 1   otherwise\n"
        "          read_from:\n            - \"CuTe SM75_U32x4_LDSM_N\"")))
    shutil.copy(os.path.join(SPECS, "m16n8k16.yaml"), tmp_path)  # the fragments it composes with
    r = run("mutate", str(tmp_path / "ldmatrix.m8n8.yaml"), "--format", "json", "--jobs", "1")
    assert r.code == 0, r.err
    outcomes = json.loads(r.out)["specs"][0]["outcomes"]
    assert {o["verdict"] for o in outcomes} <= set(ORDER)
    assert "composition" in ORDER and ORDER.index("provenance") < ORDER.index("composition")
    read = [o for o in outcomes if o["verdict"] == "provenance"]
    assert read and all(o["fragment"] == "r.x4" and o["by"] == "r.x4 read from CuTe SM75_U32x4_LDSM_N" for o in read)
    assert any(o["operator"] == "pieces" for o in read)


# docs/gate.md's worked example: A.f16's row condition of m16n8k16 "simplified" to `i < 4`
GATE_GOOD = "row = groupID for ai where 0 <= i < 2 || 4 <= i < 6"
GATE_BAD = "row = groupID for ai where i < 4"


def _gate_edit(folder) -> str:
    text = open(os.path.join(SPECS, "m16n8k16.yaml"), encoding="utf-8").read()
    assert text.count(GATE_GOOD) == 1, "docs/gate.md's worked example moved"
    path = folder / "m16n8k16.yaml"
    path.write_text(text.replace(GATE_GOOD, GATE_BAD))
    return str(path)


def test_a_spec_that_fails_unmutated_is_reported_not_measured(run, tmp_path):
    """Against a spec that already fails, every mutant would count as killed (the gate.md edit
    once gave "209 of 209 non-equivalent killed (100.0%)" and exit 0): the campaign proves the
    specs first and, where they fail, says where as prove does, with no kill rate and exit 1."""
    path = _gate_edit(tmp_path)
    r = run("mutate", path, "--jobs", "1")
    assert r.code == 1 and r.out == "" and "Traceback" not in r.err
    assert f"{path}:30:17: error: A.f16 injective refuted: A.f16 is not injective" in r.err
    assert f"replay: checker eval {path} --fragment A.f16 --lane 0 --i 0" in r.err
    assert f"the unmutated specs fail `checker prove {path}`" in r.err and "non-equivalent killed" not in r.err
    assert run("mutate", path, "--format", "json").out == ""  # no campaign to give as JSON either


def test_a_composition_that_fails_unmutated_is_reported_not_a_traceback(run, tmp_path):
    """QA: ldmatrix.m8n8's r.x4 row edited to `8 * (i & 0x1)` once ended mutate in KeyError:
    'composition'; it fails injective, covers and its composition with m16n8k16's A, each said
    at its line."""
    text = open(os.path.join(SPECS, "ldmatrix.m8n8.yaml"), encoding="utf-8").read()
    lines = text.split("\n")
    assert lines[80] == "            row = (%laneid >> 2) + 8 * (i >> 1)", "the r.x4 formula moved"
    lines[80] = "            row = (%laneid >> 2) + 8 * (i & 0x1)"
    path = tmp_path / "ldmatrix.m8n8.yaml"
    path.write_text("\n".join(lines))
    shutil.copy(os.path.join(SPECS, "m16n8k16.yaml"), tmp_path)
    r = run("mutate", str(path), "--jobs", "1")
    assert r.code == 1 and r.out == "" and "Traceback" not in r.err
    assert f"{path}:81:19: error: r.x4 injective refuted" in r.err
    assert f"{path}:81:19: error: composition ldmatrix.x4/m16n8k16/A.f16 refuted" in r.err


def test_a_mutant_with_the_original_map_stays_equivalent_where_the_original_fails(tmp_path):
    """The campaign itself (which `checker mutate` runs only on specs that prove) counts a kill
    only for what the original passes: with the gate.md edit the relation
    transpose/m16n8k16/B-is-top-of-A fails on the original, so the B.f16 mutant that drops a mask
    its piece makes redundant (the same map, z3 proves) stays equivalent instead of being
    "killed" by that relation."""
    from checker.mutate.campaign import campaign

    path = _gate_edit(tmp_path)
    rels = open(os.path.join(SPECS, "relations.yaml"), encoding="utf-8").read()
    head, _, rest = rels.partition("relations:\n")
    start = rest.index("  - id: transpose/m16n8k16/B-is-top-of-A\n")
    end = rest.index("  - id: ", start + 1)
    (tmp_path / "relations.yaml").write_text(head + "relations:\n" + rest[start:end])
    [c] = campaign([path, str(tmp_path / "relations.yaml")], 1)
    masks = [o for o in c.outcomes if o.fragment == "B.f16" and o.operator == "mask" and o.verdict != "in-range"]
    assert [(o.verdict, o.by, o.difference) for o in masks] == [("equivalent", "", "")]
    # a relation kills only a mutant that breaks it where the original keeps it: none here
    assert not any(o.by == "transpose/m16n8k16/B-is-top-of-A" for o in c.outcomes)


def test_the_solver_budget_is_a_runs_not_the_processs(run, monkeypatch):
    """A process that lives on (a notebook, these tests' in-process CLI) spent the budget once and
    then answered unknown to every query of every later run: each run, a command or an API call,
    starts with the whole budget, and a run inside another spends the outer one's."""
    import checker
    from checker.smt import solver

    spec = os.path.join(SPECS, "m8n8k32.yaml")
    monkeypatch.setattr(solver, "_spent", solver.TOTAL_BUDGET_S)  # what earlier runs spent
    r = run("prove", spec, "--jobs", "1", "--format", "json")
    assert r.code == 0 and json.loads(r.out)["summary"]["unknown"] == 0, r.err
    monkeypatch.setattr(solver, "_spent", solver.TOTAL_BUDGET_S)
    assert checker.prove(spec).ok
    monkeypatch.setattr(solver, "_spent", solver.TOTAL_BUDGET_S)
    assert checker.load(spec).fragment("C.s32").compare("((4,8),(2)):((16,1),(8))").equal is not None
    with solver.run_budget():  # an outer run that has spent its budget: the inner one has nothing left
        monkeypatch.setattr(solver, "_spent", solver.TOTAL_BUDGET_S)
        assert checker.prove(spec).summary["unknown"] > 0


def test_the_solver_budget_is_spent_in_cpu_time_not_the_clock_s(monkeypatch):
    """The run's 120 s was measured by the clock: on a machine other jobs load, a large but honest
    question could run out of it and come back undecided. A query charges the process's CPU time."""
    import time

    from checker.smt import solver

    clock = iter(range(0, 10 ** 6, 1000))  # a clock that says 1000 s go by in each query
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(clock)))
    with solver.run_budget():
        for _ in range(3):
            assert solver._solve("(assert true)\n", (), solver.RLIMIT).status == "sat"
        assert solver._spent < 1.0  # three trivial queries: milliseconds of CPU
