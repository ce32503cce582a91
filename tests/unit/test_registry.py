"""A property is one module: CONTRIBUTING's worked example, tests/cases/new_property/pairs_in_line.py,
copied into a copy of the package with no other file touched, is proved by both engines on every
fragment of specs/ (so `prove specs/` stays green), refuted on the mutant it comes with at the
smallest point and the line that slipped, described in SARIF and ordered in the mutation campaign;
and it changes no verdict of the mutant cases already kept."""
from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys

from conftest import CASES, ROOT, SPECS

from checker.properties import PROPERTIES, REGISTRY

EXAMPLE = os.path.join(CASES, "new_property")
MUTANT = os.path.join(EXAMPLE, "pairs-in-line", "m16n8k8.yaml")  # copied to tests/cases/mutants/ by a contributor


def test_the_registry_is_ordered_and_named_once():
    assert PROPERTIES[0] == "fragment-shape" and len(set(PROPERTIES)) == len(PROPERTIES)
    assert [p.order for p in REGISTRY] == sorted(p.order for p in REGISTRY)
    assert all(p.meaning and p.kind in ("table", "point", "pair", "cell") for p in REGISTRY)


def _copy(tmp_path, with_the_example: bool = True):
    """The package copied, with the example property or without it (these tests hold both before
    a contributor follows CONTRIBUTING's steps in this checkout and after)."""
    shutil.copytree(os.path.join(ROOT, "checker"), tmp_path / "checker",
                    ignore=shutil.ignore_patterns("__pycache__"))
    module = tmp_path / "checker" / "properties" / "pairs_in_line.py"
    if with_the_example:
        shutil.copy(os.path.join(EXAMPLE, "pairs_in_line.py"), module)
    elif module.exists():
        module.unlink()
    return tmp_path


def _run(root, *args):
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run([sys.executable, "-m", "checker", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)


def _failing(results) -> set:
    return {(x["fragment"] or x["subject"], x["property"], x["verdict"]) for x in results
            if x["verdict"] != "PROVED" and not x["erratum"] and not x["declared"]}


def test_a_new_property_is_one_module(tmp_path):
    root = _copy(tmp_path)
    # true of every fragment of the catalogue, and of every erratum's printed text as declared
    r = _run(root, "prove", SPECS, "--format", "json", "--no-cache")
    assert r.returncode == 0, r.stdout[-3000:]
    results = json.loads(r.stdout)["results"]
    mine = [x for x in results if x["property"] == "pairs-in-line"]
    assert mine and {x["verdict"] for x in mine} == {"PROVED"} and not _failing(results)
    proved = {(os.path.basename(x["spec"]), x["fragment"]) for x in mine}
    # pairs along a row (A.f16, C.float), down a column (B.f16), eight rows apart in one column (A.tf32)
    assert {("m16n8k16.yaml", "A.f16"), ("m16n8k16.yaml", "B.f16"), ("m16n8k16.yaml", "C.float"),
            ("m16n8k8.yaml", "A.tf32")} <= proved
    # and false of its mutant: by both engines at the smallest point, at the line that slipped
    r = _run(root, "prove", MUTANT, "--format", "json", "--no-cache")
    assert r.returncode == 1, r.stderr
    results = json.loads(r.stdout)["results"]
    assert _failing(results) == {("C.f64", "pairs-in-line", "REFUTED")}
    refuted = next(x for x in results if x["property"] == "pairs-in-line" and x["verdict"] == "REFUTED")
    assert refuted["counterexample"]["lanes"] == [0] and refuted["counterexample"]["elements"] == ["c0", "c1"]
    lines = open(MUTANT, encoding="utf-8").read().splitlines()
    slipped = 1 + next(k for k, line in enumerate(lines) if "groupID + 8" in line and "for c1 and c2" in line)
    assert refuted["location"].startswith(f"{MUTANT}:{slipped}:")
    assert refuted["message"] == "C.f64: lane 0 c0 and c1 lie in no one row or column: C[0][0] and C[8][1]"
    sarif = json.loads(_run(root, "prove", MUTANT, "--format", "sarif", "--no-cache").stdout)
    rules = {rule["id"]: rule["shortDescription"]["text"] for rule in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["pairs-in-line"] == "Elements 2j and 2j+1 of a lane lie in one row or one column"
    order = subprocess.run([sys.executable, "-c", "from checker.mutate.campaign import ORDER; print(' '.join(ORDER))"],
                           cwd=root, env=dict(os.environ, PYTHONPATH=str(root)), capture_output=True, text=True,
                           timeout=60)
    assert "chunk pairs-in-line computations" in order.stdout  # the campaign's stages are the registry's


def test_the_example_mutant_is_killed_by_the_example_alone(tmp_path):
    """Without the property its mutant proves: a bijection every other property and theorem
    accepts, so the property is what kills it (CONTRIBUTING: a mutant that it refutes)."""
    r = _run(_copy(tmp_path, with_the_example=False), "prove", MUTANT, "--format", "json", "--no-cache")
    results = json.loads(r.stdout)["results"]
    assert r.returncode == 0 and not _failing(results)
    assert "pairs-in-line" not in {x["property"] for x in results}  # proved without the property, not with it


def test_the_example_changes_no_kept_mutant_case(tmp_path):
    """Installed, the example refutes none of the mutant cases already kept, so copying it and
    its mutant is the whole change of code (each case's `# expect:` lines stay as they are)."""
    root = _copy(tmp_path)
    cases = [p for p in sorted(glob.glob(os.path.join(CASES, "mutants", "*", "*.yaml")))
             if os.path.basename(os.path.dirname(p)) != "pairs-in-line"]  # but its own, once copied there
    # one interpreter proving each case in turn (a case is a folder of its own: proved alone)
    script = ("import io, json, sys\nfrom checker.cli import main\nfor path in sys.argv[1:]:\n"
              "    out = io.StringIO()\n    main(['prove', path, '--format', 'json', '--no-cache'], out, io.StringIO())\n"
              "    print(json.dumps([path, json.loads(out.getvalue())['results']]))\n")
    r = subprocess.run([sys.executable, "-c", script, *cases], cwd=root, env=dict(os.environ, PYTHONPATH=str(root)),
                       capture_output=True, text=True, timeout=600)
    proved = [json.loads(line) for line in r.stdout.splitlines()]
    assert [path for path, _ in proved] == cases, r.stderr[-2000:]
    for path, results in proved:
        verdicts = {x["verdict"] for x in results if x["property"] == "pairs-in-line"}
        # asked of every dense fragment (a sparse case may hold only its sparse A, which it skips)
        assert verdicts == {"PROVED"} or (not verdicts and "/sparse-" in path), (path, verdicts)


# --- a theorem family is one module too ----------------------------------------------------------

FAMILY_EXAMPLE = os.path.join(CASES, "new_family", "c_origin.py")


def test_the_theorem_registry_holds_each_instruction_family_to_its_theorems():
    """What each instruction family's specs are held to, as the prover asked it before the
    registry (a family that dropped out, or one asked of another family's specs, shows here)."""
    from checker.families import FAMILIES as INSTRUCTIONS
    from checker.theorems.registry import FAMILIES, REGISTRY

    held = {name: tuple(f.name for f in REGISTRY if name in f.holds) for name in INSTRUCTIONS}
    assert {k: v for k, v in held.items() if v} == {
        "mma": ("same-as", "words", "dimensions", "computations", "shared-layout", "packing"),
        "ldmatrix": ("provenance", "composition", "containers"), "stmatrix": ("provenance", "composition"),
        "movmatrix": ("provenance", "composition"), "tcgen05": ("provenance",),
        "wgmma": ("words", "warpgroup"), "wgmma.sp": ("same-as", "words", "warpgroup"),
        "mma.block_scale": ("scale-rows",)}
    assert FAMILIES == ("computations", "shared-layout", "packing", "provenance", "composition", "scale-rows",
                        "containers", "warpgroup")
    assert all(f.meaning and f.holds and callable(f.prove) for f in REGISTRY)


def test_a_new_theorem_family_is_one_module(tmp_path):
    """CONTRIBUTING's example family, tests/cases/new_family/c_origin.py, copied into a copy of the
    package: asked of every mma spec (green on specs/), refuted where a C row formula slips,
    described in SARIF and a stage of the mutation campaign."""
    root = _copy(tmp_path, with_the_example=False)
    shutil.copy(FAMILY_EXAMPLE, root / "checker" / "theorems" / "c_origin.py")
    r = _run(root, "prove", SPECS, "--format", "json", "--no-cache")
    assert r.returncode == 0, r.stdout[-3000:]
    mine = [x for x in json.loads(r.stdout)["results"] if x["property"] == "c-origin"]
    assert len(mine) == 16 and {x["verdict"] for x in mine} == {"PROVED"}
    assert {os.path.basename(x["spec"]) for x in mine} == {f"{s}.yaml" for s in (
        "m8n8k4", "m8n8k16", "m8n8k32", "m8n8k128", "m16n8k4", "m16n8k8", "m16n8k16", "m16n8k32", "m16n8k64",
        "m16n8k128", "m16n8k256")}
    text = open(os.path.join(SPECS, "m16n8k8.yaml"), encoding="utf-8").read()
    slip = "      row =      groupID                            for c0 and c1"
    assert text.count(slip) == 2
    (tmp_path / "mutant").mkdir()
    (tmp_path / "mutant" / "m16n8k8.yaml").write_text(text.replace(slip, slip.replace("groupID    ", "groupID + 1"), 1),
                                                     encoding="utf-8")
    r = _run(root, "prove", str(tmp_path / "mutant" / "m16n8k8.yaml"), "--format", "sarif", "--no-cache")
    sarif = json.loads(r.stdout)
    rules = {x["id"]: x["shortDescription"]["text"] for x in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert r.returncode == 1 and rules.get("c-origin") == "Lane 0's first accumulator element is C[0][0]"
    assert any(x["ruleId"] == "c-origin" and "lane 0 c0 of C.float is C[1][0]" in x["message"]["text"]
               for x in sarif["runs"][0]["results"])
    order = subprocess.run([sys.executable, "-c", "from checker.mutate.campaign import ORDER; print(ORDER)"], cwd=root,
                           env=dict(os.environ, PYTHONPATH=str(root)), capture_output=True, text=True, timeout=60)
    assert "'packing', 'c-origin', 'provenance', 'composition'" in order.stdout, order.stdout + order.stderr
