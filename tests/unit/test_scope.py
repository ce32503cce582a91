"""What proving a file proves (checker/scope.py, README "What proving a file proves"): a wrong
edit that keeps every layout a bijection is caught by `prove` of the one edited file, at the
edited line, by `checker diff` (naming the relation and the cell), and by the pre-commit hook run
on just that file; `mutate` of one spec is judged by the relations beside it."""
import json
import os
import shutil
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, SPECS

BIN = os.path.dirname(sys.executable)

# Bijective but wrong: every per-fragment property and spec theorem still holds.
EDITS = {
    # B.f16 rows: threadID_in_group + (i & 0x1) * 4 instead of (threadID_in_group * 2) + (i & 0x1)
    "B.f16 row": (72, "(threadID_in_group * 2) + (i & 0x1) for bi where i < 2\n"
                      "          (threadID_in_group * 2) + (i & 0x1) + 8 for bi where i >= 2",
                  "threadID_in_group + (i & 0x1) * 4 for bi where i < 2\n"
                  "          threadID_in_group + (i & 0x1) * 4 + 8 for bi where i >= 2"),
    # A.f16 columns, the same mistake
    "A.f16 col": (32, "col = (threadID_in_group * 2) + (i & 0x1) for ai where i < 4\n"
                      "          (threadID_in_group * 2) + (i & 0x1) + 8 for ai where i >= 4",
                  "col = threadID_in_group + (i & 0x1) * 4 for ai where i < 4\n"
                  "          threadID_in_group + (i & 0x1) * 4 + 8 for ai where i >= 4"),
    # A.f16 columns: the two halves of K swapped (the +8 on the other piece)
    "A.f16 col halves": (32, "col = (threadID_in_group * 2) + (i & 0x1) for ai where i < 4\n"
                             "          (threadID_in_group * 2) + (i & 0x1) + 8 for ai where i >= 4",
                         "col = (threadID_in_group * 2) + (i & 0x1) + 8 for ai where i < 4\n"
                         "          (threadID_in_group * 2) + (i & 0x1) for ai where i >= 4"),
}


def edited(tmp_path, name) -> tuple:
    """A copy of specs/ with one edit of m16n8k16; (folder, path of the edited spec, its line)."""
    folder = tmp_path / "specs"
    shutil.copytree(SPECS, folder)
    line, old, new = EDITS[name]
    path = folder / "m16n8k16.yaml"
    text = path.read_text()
    assert text.count(old) == 1
    path.write_text(text.replace(old, new))
    return str(folder), str(path), line


@pytest.mark.parametrize("name", sorted(EDITS))
def test_prove_of_the_edited_file_alone_fails_at_the_edited_line(run, tmp_path, name):
    folder, path, line = edited(tmp_path, name)
    r = run("prove", path, "--jobs", "1")
    assert r.code == 1, r.out
    errors = [ln for ln in r.out.splitlines() if ": error: " in ln and ": error: composition " not in ln]
    # every per-fragment proof holds; what breaks is relations (and m64nNk16's a-stacked theorem)
    assert errors and all(": error: relation " in ln or ": error: warpgroup a-stacked" in ln for ln in errors)
    assert all(ln.startswith(f"{path}:{line}:") for ln in errors), errors  # at the edited formula
    assert f"{folder}/relations.yaml:" in r.out and "is declared here" in r.out  # the relation's line, a note
    assert f"replay: checker eval {path} --fragment " in r.out
    assert "scope: " in r.out and "relations of" in r.out


def test_prove_of_the_edited_file_in_json_and_sarif(run, tmp_path):
    folder, path, line = edited(tmp_path, "B.f16 row")
    js = json.loads(run("prove", path, "--format", "json", "--jobs", "1").out)
    failed = [x for x in js["results"] if x["verdict"] == "REFUTED" and not x["declared"] and not x["erratum"]]
    # the ldmatrix compositions that rest on B.f16 fail too (tests/unit/test_ldmatrix.py): set aside here
    failed = [x for x in failed if x["property"] != "composition"]
    assert failed and {x["property"] for x in failed} == {"relation"}
    assert all(x["location"].startswith(f"{path}:{line}:") for x in failed)
    assert all(x["counterexample"]["relation_at"].startswith(f"{folder}/relations.yaml:") for x in failed)
    sarif = json.loads(run("prove", path, "--format", "sarif", "--jobs", "1").out)
    errors = [x for x in sarif["runs"][0]["results"] if x["level"] == "error" and x["ruleId"] != "composition"]
    assert errors and all(x["locations"][0]["physicalLocation"]["region"]["startLine"] == line for x in errors)
    assert all(x["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("relations.yaml")
               for x in errors)


def test_the_scope_of_a_spec_and_of_the_relations_file():
    from checker.scope import widen

    k256 = os.path.join(SPECS, "m16n8k256.yaml")
    sc = widen([k256])
    assert sc.given == [k256] and sc.specs[0] == k256
    assert os.path.join(SPECS, "m16n8k16.yaml") in sc.added  # named by relations that name m16n8k256
    (rel,) = sc.relations
    assert rel == os.path.join(SPECS, "relations.yaml") and rel.shapes == {"m16n8k256"}
    # the relations file given: all of its relations, and every spec they name
    whole = widen([os.path.join(SPECS, "relations.yaml")])
    assert whole.relations[0].shapes is None and len(whole.specs) == 11
    # same_as: m16n8k128's sparse section names m16n8k64's C; m16n8k64 is in its scope, and it in m16n8k64's
    assert os.path.join(SPECS, "m16n8k64.yaml") in widen([os.path.join(SPECS, "m16n8k128.yaml")]).specs
    # the folder given: itself, nothing added, nothing restricted
    every = widen(sorted(os.path.join(SPECS, f) for f in os.listdir(SPECS) if f.endswith(".yaml")))
    assert not every.widened()


def test_a_spec_with_no_relations_beside_it_is_its_own_scope(tmp_path):
    from checker.scope import widen

    shutil.copy(os.path.join(SPECS, "m8n8k4.yaml"), tmp_path)
    sc = widen([str(tmp_path / "m8n8k4.yaml")])
    assert sc.files == [str(tmp_path / "m8n8k4.yaml")] and not sc.widened()


@pytest.mark.parametrize("prefix", ["untranscribed", "relations"])
def test_a_reference_whose_prefix_names_the_folders_other_files_brings_neither_into_scope(run, tmp_path, prefix):
    """A same_as reference is `shape/id`; its prefix was looked up beside the spec as `PREFIX.yaml`
    whatever it was, so `untranscribed/C.int` (which the schema refuses) also put the folder's
    untranscribed-figures list into the scope as a spec, blamed for 'unknown key untranscribed'."""
    from checker.scope import widen

    folder = tmp_path / "specs"
    shutil.copytree(SPECS, folder)
    spec = folder / "m16n8k64.yaml"
    text = spec.read_text()
    assert text.count("fragments: [m16n8k16/C.int]") == 1
    spec.write_text(text.replace("fragments: [m16n8k16/C.int]", f"fragments: [{prefix}/C.int]"))
    sc = widen([str(spec)])
    assert str(folder / f"{prefix}.yaml") not in sc.specs, sc.specs
    r = run("prove", str(spec), "--no-cache")
    assert r.code == 3 and f"{spec}:" in r.out and f"{folder / prefix}.yaml:" not in r.out, r.out


def test_the_scope_is_the_same_in_one_process_and_with_workers(run, tmp_path):
    """The relations file's restriction reaches the forked workers."""
    from checker import prover
    from checker.options import Options
    from checker.scope import widen

    sc = widen([os.path.join(SPECS, "m16n8k256.yaml")])
    one = prover.prove_paths(sc.files, Options(jobs=1))
    two = prover.prove_paths(sc.files, Options(jobs=2))
    key = lambda rs: sorted((r.spec, r.fragment or r.subject, r.property, r.verdict) for r in rs)  # noqa: E731
    assert key(one) == key(two)
    rels = {r.subject for r in one if r.property == "relation"}
    assert rels and all("m16n8k256" in s for s in rels)


def test_diff_names_the_relation_and_the_cell(run, tmp_path):
    folder, path, line = edited(tmp_path, "B.f16 row")
    r = run("diff", os.path.join(SPECS, "m16n8k16.yaml"), path)
    assert r.code == 1, r.out
    assert "B.f16: 96 of 128 entries move" in r.out
    assert (f"{folder}/relations.yaml: not edited; verdicts changed by the edit of {path} "
            "(a verdict got worse)") in r.out
    assert "verdict transpose/m16n8k16/B-is-top-of-A relation: PROVED -> REFUTED" in r.out
    assert (f"    {path}:{line}:17: does not hold: at %laneid = 0, i = 1: m16n8k16/B.f16 lane 0 b1 gives (4, 0) "
            "but m16n8k16/A.f16 lane 0 a1 gives (1, 0)") in r.out
    md = run("diff", os.path.join(SPECS, "m16n8k16.yaml"), path, "--format", "markdown").out
    assert "**A verdict got worse**" in md
    assert "| transpose/m16n8k16/B-is-top-of-A relation | PROVED | REFUTED :x: |" in md
    assert "- :x: **transpose/m16n8k16/B-is-top-of-A relation** at `" in md and "gives (4, 0)" in md
    js = json.loads(run("diff", os.path.join(SPECS, "m16n8k16.yaml"), path, "--format", "json").out)
    rel = next(s for s in js["specs"] if s["path"].endswith("relations.yaml"))
    assert js["worse"] and rel["status"] == "affected" and rel["affected_by"] == [path]
    v = next(v for v in rel["verdicts"] if v["what"].startswith("transpose/"))
    assert v["location"].startswith(f"{path}:{line}:") and "gives (4, 0)" in v["why"]


def test_diff_against_git_compares_the_relations(run, tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    shutil.copytree(SPECS, repo / "specs")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "seed"]):
        subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=repo,
                       check=True, capture_output=True)
    line, old, new = EDITS["A.f16 col"]
    p = repo / "specs" / "m16n8k16.yaml"
    p.write_text(p.read_text().replace(old, new))
    monkeypatch.chdir(repo)
    for args in ((), ("specs/m16n8k16.yaml",)):  # the folder, or just the edited file
        r = run("diff", "--base", "HEAD", *args)
        assert r.code == 1, r.out
        assert "specs/relations.yaml: not edited; verdicts changed by the edit of specs/m16n8k16.yaml" in r.out
        assert "verdict c-to-a-reuse/m16n8k16 relation: PROVED -> REFUTED" in r.out
        assert f"    specs/m16n8k16.yaml:{line}:" in r.out


def test_mutate_of_one_spec_is_judged_by_its_relations(run):
    r = run("mutate", os.path.join(SPECS, "m16n8k256.yaml"), "--jobs", "1")
    assert r.code == 0, r.out
    assert "100 mutants; killed 99 of 99 non-equivalent (100.0%)" in r.out and "relation 4" in r.out
    assert "NOT A KNOWN GAP" not in r.out


def _hook_entry() -> list:
    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml")) as fh:
        hook = next(h for h in yaml.safe_load(fh) if h["id"] == "checker-prove")
    return hook["entry"].split()


def test_the_offered_hooks_entry_on_just_the_edited_file_fails(tmp_path):
    folder, path, line = edited(tmp_path, "B.f16 row")
    entry = _hook_entry()
    exe = os.path.join(BIN, entry[0])
    r = subprocess.run([exe, *entry[1:], "specs/m16n8k16.yaml"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300, env=dict(os.environ, CHECKER_NO_CACHE="1"))
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"specs/m16n8k16.yaml:{line}:17: error: relation " in r.stdout


def test_this_repositorys_prove_hook_on_just_the_edited_file_fails(tmp_path):
    folder, path, line = edited(tmp_path, "A.f16 col")
    repo = tmp_path
    shutil.copy(os.path.join(ROOT, ".pre-commit-config.yaml"), repo)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"]):
        subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=repo,
                       check=True, capture_output=True)
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"), PATH=BIN + os.pathsep + os.environ["PATH"])
    r = subprocess.run([os.path.join(BIN, "pre-commit"), "run", "checker-prove", "--color", "never",
                        "--files", "specs/m16n8k16.yaml"], cwd=repo, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Failed" in r.stdout and f"specs/m16n8k16.yaml:{line}:" in r.stdout


def test_a_wgmma_spec_and_the_mma_sync_specs_its_theorems_read_are_one_scope(tmp_path):
    """The wgmma theorems read m16n8k16's C.float (and the A of the same K, and m64nNk16's A):
    proving either side proves the other (checker.families.reads)."""
    from checker.scope import widen

    def named(path):
        return {os.path.basename(p) for p in widen([os.path.join(SPECS, path)]).added}

    assert {"m64nNk8.yaml", "m64nNk16.yaml", "m64nNk32.yaml", "m64nNk256.yaml"} <= named("m16n8k16.yaml")
    assert "m64nNk32.yaml" in named("m16n8k32.yaml") and "m64nNk16.yaml" not in named("m16n8k32.yaml")
    assert {"m16n8k16.yaml", "m16n8k32.yaml", "m64nNk16.yaml"} <= named("m64nNk32.yaml")
    assert {"m16n8k16.yaml", "m16n8k8.yaml"} <= named("m64nNk8.yaml") and "m64nNk8.yaml" not in named("m64nNk8.yaml")
    shutil.copy(os.path.join(SPECS, "m64nNk32.yaml"), tmp_path)  # none of them beside it: its own scope
    assert not widen([str(tmp_path / "m64nNk32.yaml")]).widened()


def test_an_edit_of_m16n8k16_that_only_a_wgmma_theorem_sees_fails_on_the_edited_file(run, tmp_path):
    """C.float with its two row halves swapped is still a bijection and no relation is beside it:
    only wgmma's mma-tiles theorem (D within a warp is C.float tiled along N) breaks, and proving
    the edited file alone runs it."""
    for name in ("m16n8k16.yaml", "m64nNk16.yaml"):
        shutil.copy(os.path.join(SPECS, name), tmp_path)
    path = tmp_path / "m16n8k16.yaml"
    old = "row = groupID for ci where i < 2\n          groupID + 8 for ci where i >= 2\n"
    text = path.read_text()
    assert text.count(old) == 2  # C.float and C.int; C.float's first
    path.write_text(text.replace(old, "row = groupID + 8 for ci where i < 2\n          groupID for ci where i >= 2\n", 1))
    proc = run("prove", str(path), "--no-cache", "--format", "json")
    assert proc.code == 1, proc.out[-2000:] + proc.err[-2000:]
    failed = [r for r in json.loads(proc.out)["results"]
              if r["verdict"] == "REFUTED" and not r.get("erratum") and not r.get("declared")]
    assert failed and {r["property"] for r in failed} == {"warpgroup"}
    assert all(r["spec"].endswith("m64nNk16.yaml") and "C.float" in r["subject"] for r in failed), failed
    line = text[:text.index(old)].count("\n") + 1  # the edited row formula: the file given is the suspect
    assert all(r["location"].startswith(f"{path}:{line}:") for r in failed), [r["location"] for r in failed]
    assert all(r["counterexample"]["relation_at"].startswith(str(tmp_path / "m64nNk16.yaml")) for r in failed)
