"""The CI gate on spec edits: `checker diff`, SARIF 2.1.0 and JUnit output, the GitHub workflow
and the pre-commit hooks, and docs/gate.md's worked example end to end: a realistic bad edit of a
seed spec fails the gate at its line with a counterexample, and the diff shows what moved."""
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT, SPECS

BIN = os.path.dirname(sys.executable)

# The worked example (docs/gate.md): someone "simplifies" A's row condition of m16n8k16
# .f16/.bf16 to `i < 4`, reading a0..a3 as one row the way C's c0..c3 are read.
GOOD = "row = groupID for ai where 0 <= i < 2 || 4 <= i < 6"
BAD = "row = groupID for ai where i < 4"


def bad_edit(folder) -> str:
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "m16n8k16.yaml")
    text = open(os.path.join(SPECS, "m16n8k16.yaml")).read()
    assert GOOD in text
    with open(path, "w") as fh:
        fh.write(text.replace(GOOD, BAD, 1))
    return path


def test_worked_example_the_gate_fails_at_the_line(run, tmp_path):
    path = bad_edit(str(tmp_path / "specs"))
    r = run("prove", path)
    assert r.code == 1
    assert (f"{path}:30:17: error: A.f16 injective refuted: A.f16 is not injective: "
            "lane 0 a0 and lane 0 a2 both hold A[0][0]") in r.out
    assert f"replay: checker eval {path} --fragment A.f16 --lane 0 --i 0" in r.out
    assert f"{path}:30:11: error: A.f16 covers refuted: A.f16 does not cover A[0][8]: no lane holds it" in r.out


def test_worked_example_the_diff_shows_what_moved(run, tmp_path):
    path = bad_edit(str(tmp_path / "specs"))
    r = run("diff", os.path.join(SPECS, "m16n8k16.yaml"), path)
    assert r.code == 1  # a verdict got worse
    assert "A.f16: 128 of 256 entries move: lanes 0\u201331, a2\u2013a5, row -8 (64), row +8 (64)" in r.out
    assert "verdict A.f16 injective: PROVED -> REFUTED" in r.out
    assert "verdict A.f16 covers: PROVED -> REFUTED" in r.out
    assert "  B.f16:" not in r.out and r.out.count("entries move") == 1  # nothing else moved
    md = run("diff", os.path.join(SPECS, "m16n8k16.yaml"), path, "--format", "markdown")
    assert "| `A.f16` | 128 of 256 entries move: lanes 0\u201331, a2\u2013a5, row -8 (64), row +8 (64) |" in md.out
    assert "| A.f16 injective | PROVED | REFUTED :x: |" in md.out
    js = json.loads(run("diff", os.path.join(SPECS, "m16n8k16.yaml"), path, "--format", "json").out)
    frag = js["specs"][0]["fragments"][0]
    assert js["worse"] and frag["moved"] == 128 and frag["entries"] == 256
    assert {"lane": 0, "i": 2, "old": [8, 0], "new": [0, 0]} in frag["entries_moved"]


def test_diff_of_identical_files_and_of_a_harmless_edit(run, tmp_path):
    same = run("diff", os.path.join(SPECS, "m8n8k4.yaml"), os.path.join(SPECS, "m8n8k4.yaml"))
    assert same.code == 0 and "unchanged" in same.out
    # the same layout written another way: i >= 4 for `Otherwise`; nothing moves, nothing changes
    text = open(os.path.join(SPECS, "m16n8k16.yaml")).read()
    d = tmp_path / "m16n8k16.yaml"
    d.write_text(text.replace("row = groupID for ai where i < 4\n          groupID + 8 for ai where i >= 4",
                              "row = groupID for ai where i < 4\n          groupID + 8 Otherwise", 1))
    assert d.read_text() != text
    r = run("diff", os.path.join(SPECS, "m16n8k16.yaml"), str(d))
    assert r.code == 0 and "unchanged" in r.out


def _edited_copy(tmp_path, name, line, old, new) -> str:
    """specs/ copied (a diff proves the edited file's scope, which reads the files beside it),
    with one edit on one 1-based line of `name`."""
    for sibling in os.listdir(SPECS):
        if sibling.endswith(".yaml"):
            shutil.copy(os.path.join(SPECS, sibling), tmp_path / sibling)
    path = tmp_path / name
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    path.write_text("".join(lines), encoding="utf-8")
    return str(path)


def test_diff_reports_a_changed_same_as_target(run, tmp_path):
    """A "same as" name moves no entry of its spec; the diff said "unchanged" for it."""
    path = _edited_copy(tmp_path, "m16n8k16.yaml", 280, "m16n8k16/B.f16", "m16n8k16/B.f64")
    r = run("diff", os.path.join(SPECS, "m16n8k16.yaml"), path)
    assert r.code == 1, r.out + r.err  # the sentence's .f16/.bf16 refute B.f64 (test_wording)
    change = ("same_as of 9.7.14.6.2.1 B/C: m16n8k16/B.f16, m16n8k16/C.float -> m16n8k16/B.f64, "
              "m16n8k16/C.float")
    assert f"{path}: modified (a verdict got worse)\n  {change}\n" in r.out
    assert "verdict the \"same as\" sentence types-named: (absent) -> REFUTED" in r.out
    assert f"    {path}:280:19: the \"same as\" sentence names .bf16, .f16, but m16n8k16/B.f64 has .f64" in r.out
    js = json.loads(run("diff", os.path.join(SPECS, "m16n8k16.yaml"), path, "--format", "json").out)
    assert js["specs"][0]["changes"] == [change] and js["worse"]
    md = run("diff", os.path.join(SPECS, "m16n8k16.yaml"), path, "--format", "markdown")
    assert f"- {change}" in md.out


def test_diff_keeps_an_erratum_s_verdict_apart_from_the_reading_s(run, tmp_path):
    """m16n8k256 A.b1's printed text breaks injective and covers (an erratum); an edit of its
    reading that breaks them too was listed under one key with the erratum's verdict, which hid it."""
    path = _edited_copy(tmp_path, "m16n8k256.yaml", 30, "+ 128", "+ 96")
    r = run("diff", os.path.join(SPECS, "m16n8k256.yaml"), path)
    assert r.code == 1
    assert "  verdict A.b1 covers: PROVED -> REFUTED\n" in r.out
    assert "  verdict A.b1 injective: PROVED -> REFUTED\n" in r.out
    assert "as printed:" not in r.out  # the errata still confirm: their verdicts did not change


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=cwd,
                   check=True, capture_output=True)


def test_diff_against_a_git_revision(run, tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    shutil.copytree(SPECS, repo / "specs")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "seed")
    bad_edit(str(repo / "specs"))
    os.remove(repo / "specs" / "m8n8k32.yaml")
    monkeypatch.chdir(repo)
    r = run("diff", "--base", "HEAD")
    assert r.code == 1
    assert "specs/m16n8k16.yaml: modified (a verdict got worse)" in r.out
    assert "A.f16: 128 of 256 entries move" in r.out
    assert "specs/m8n8k32.yaml: removed" in r.out
    assert "m8n8k4.yaml" not in r.out  # unchanged files are not listed
    bad = run("diff", "--base", "no-such-rev")  # git's command line and "exit status 1" before
    assert bad.code == 2 and f"--base 'no-such-rev': no such commit in '{repo}'" in bad.err, bad.err
    monkeypatch.chdir(tmp_path)  # outside the repository
    bad = run("diff", "--base", "HEAD", str(repo / "specs"))
    assert bad.code == 2 and f"'{tmp_path}' is not in a git repository" in bad.err, bad.err


def test_diff_against_a_git_revision_sees_what_a_removed_spec_breaks(run, tmp_path, monkeypatch):
    """A spec removed alone was "removed", exit 0, while relations.yaml, which names it, no longer
    loads (`prove` exits 3); and with a folder given (`specs/`, the workflow's form) the removal was
    not seen at all: "no spec file changed"."""
    repo = tmp_path / "repo"
    shutil.copytree(SPECS, repo / "specs")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "seed")
    os.remove(repo / "specs" / "m8n8k32.yaml")
    monkeypatch.chdir(repo)
    broken = ("specs/relations.yaml: not edited; verdicts changed by the edit of specs/m8n8k32.yaml "
              "(a verdict got worse)")
    for args in ((), ("specs/",), ("specs",)):
        r = run("diff", "--base", "HEAD", *args)
        assert r.code == 1, (args, r.out)
        assert "specs/m8n8k32.yaml: removed" in r.out and broken in r.out, (args, r.out)
        assert "specs/relations.yaml:" in r.out and "no spec m8n8k32.yaml beside the relations file" in r.out
    monkeypatch.chdir(repo / "specs")  # named from the working folder, as every other file
    r = run("diff", "--base", "HEAD", ".")
    assert r.code == 1 and "m8n8k32.yaml: removed" in r.out and "specs/" not in r.out, r.out
    assert "relations.yaml: not edited; verdicts changed by the edit of m8n8k32.yaml (a verdict got worse)" in r.out
    # the control: a spec nothing else reads can go
    monkeypatch.chdir(repo)
    _git(repo, "checkout", "-q", "--", "specs/m8n8k32.yaml")
    os.remove(repo / "specs" / "stmatrix.m8n8.yaml")
    r = run("diff", "--base", "HEAD", "specs/")
    assert r.code == 0 and "specs/stmatrix.m8n8.yaml: removed" in r.out and "not edited" not in r.out, r.out


def test_diff_of_a_named_file_sees_a_sibling_its_scope_had_removed(run, tmp_path, monkeypatch):
    """`diff --base HEAD specs/m16n8k32.yaml` with m16n8k16.yaml (what its same_as sentences name)
    removed said "no spec file changed", exit 0, where `prove specs/m16n8k32.yaml` fails: the
    scope was taken of the files that exist now only. And the removed file named itself was "no
    such file or folder", exit 2."""
    repo = tmp_path / "repo"
    shutil.copytree(SPECS, repo / "specs")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "seed")
    monkeypatch.chdir(repo)
    os.remove(repo / "specs" / "m8n8k4.yaml")  # the control: outside m16n8k32's scope, then and now
    r = run("diff", "--base", "HEAD", "specs/m16n8k32.yaml")
    assert r.code == 0 and r.out == "no spec file changed\n", r.out
    os.remove(repo / "specs" / "m16n8k16.yaml")
    # m8n8k4 is in m16n8k16's scope (relations tie them), not in m16n8k32's
    for named, k4 in (("specs/m16n8k32.yaml", False), ("specs/m16n8k16.yaml", True)):
        r = run("diff", "--base", "HEAD", named)
        assert r.code == 1, (named, r.out)
        assert "specs/m16n8k16.yaml: removed\n" in r.out, (named, r.out)
        assert ("specs/m8n8k4.yaml: removed\n" in r.out) is k4 and ("specs/m8n8k4.yaml: not" in r.out) is False
        assert ("specs/m16n8k32.yaml: not edited; verdicts changed by the edit of specs/m16n8k16.yaml "
                "(a verdict got worse)") in r.out, (named, r.out)
    for never in ("specs/never.yaml", "nosuch/", "specs/nosuch"):  # a typo in a CI path said "no spec file changed"
        r = run("diff", "--base", "HEAD", never)
        assert r.code == 2 and f"no such file or folder: {never} (nor at 'HEAD')" in r.err, r.err


def test_sarif_validates_against_sarif_2_1_0_and_locates_the_failure(run, tmp_path):
    from pydantic import ValidationError
    from pydantic_sarif.model import StaticAnalysisResultsFormatSarifVersion210JsonSchema as Sarif

    path = bad_edit(str(tmp_path / "specs"))
    r = run("prove", path, "--format", "sarif")
    assert r.code == 1
    doc = json.loads(r.out)
    Sarif.model_validate(doc)  # the pydantic model generated from OASIS's sarif-schema-2.1.0.json
    errors = [x for x in doc["runs"][0]["results"] if x["level"] == "error"]
    inj = next(x for x in errors if x["ruleId"] == "injective")
    region = inj["locations"][0]["physicalLocation"]
    assert region["region"] == {"startLine": 30, "startColumn": 17}
    assert region["artifactLocation"]["uri"].endswith("specs/m16n8k16.yaml")
    assert "lane 0 a0 and lane 0 a2 both hold A[0][0]" in inj["message"]["text"]
    notes = [x for x in doc["runs"][0]["results"] if x["level"] == "note"]
    assert len(notes) == 14  # the errata of m16n8k16 (5 of formulas and tables, 9 of words), confirmed
    clean = json.loads(run("prove", SPECS, "--format", "sarif").out)
    Sarif.model_validate(clean)
    assert not [x for x in clean["runs"][0]["results"] if x["level"] == "error"]
    doc["runs"][0]["results"][0]["level"] = "fatal"  # the validator can fail
    with pytest.raises(ValidationError):
        Sarif.model_validate(doc)


def test_junit_lists_every_result_and_fails_the_broken_ones(run, tmp_path):
    path = bad_edit(str(tmp_path / "specs"))
    out = tmp_path / "junit.xml"
    r = run("prove", path, "--format", "junit", "--output", str(out))
    assert r.code == 1 and "refuted" in r.out  # the text summary still goes to stdout
    root = ET.parse(out).getroot()
    assert root.tag == "testsuites" and int(root.get("failures")) >= 2 and root.get("errors") == "0"
    cases = root.findall(".//testcase")
    assert len(cases) == int(root.get("tests"))
    failed = {c.get("classname").rsplit(".", 1)[-1] + " " + c.get("name") for c in cases if c.find("failure") is not None}
    assert {"f16 injective", "f16 covers"} <= failed


def test_the_gate_fails_when_it_checks_nothing(run, tmp_path):
    r = run("prove", str(tmp_path))
    assert r.code == 2 and "nothing was checked" in r.err


def test_the_workflow_validates_against_the_github_workflow_schema(tmp_path):
    wf = os.path.join(ROOT, ".github", "workflows", "spec-gate.yml")
    cmd = [os.path.join(BIN, "check-jsonschema"), "--builtin-schema", "vendor.github-workflows"]
    ok = subprocess.run(cmd + [wf], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    text = open(wf).read()
    for step in ("checker validate specs/", "checker prove specs/ --no-cache --format sarif", "checker crosscheck specs/ --dumps reports/",
                 "run: checker conformance\n",
                 "checker report specs/ --out reports --check",
                 "checker mutate specs/ --known-gaps mutation/known-gaps.yaml", "checker diff --base", "upload-sarif", "python -m pytest"):
        assert step in text
    broken = tmp_path / "broken.yml"
    broken.write_text(text.replace("runs-on: ubuntu-latest", "runs_on: ubuntu-latest", 1))
    bad = subprocess.run(cmd + [str(broken)], capture_output=True, text=True)
    assert bad.returncode != 0


def test_pre_commit_files_are_valid():
    pc = os.path.join(BIN, "pre-commit")
    for args in (["validate-manifest", ".pre-commit-hooks.yaml"], ["validate-config", ".pre-commit-config.yaml"]):
        r = subprocess.run([pc, *args], cwd=ROOT, capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr


def test_the_offered_hook_runs_in_another_repository(tmp_path):
    """`pre-commit try-repo` installs this repository's hook as another repository would get it
    and runs it on a spec edit: a good spec passes, the worked example's bad edit is blocked."""
    repo = tmp_path / "user-repo"
    (repo / "specs").mkdir(parents=True)
    shutil.copy(os.path.join(SPECS, "m8n8k4.yaml"), repo / "specs")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "specs")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"), PATH=BIN + os.pathsep + os.environ["PATH"])
    cmd = [os.path.join(BIN, "pre-commit"), "try-repo", ROOT, "checker-prove", "--color", "never", "--files"]
    ok = subprocess.run(cmd + ["specs/m8n8k4.yaml"], cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "checker prove (PTX mma fragment specs)" in ok.stdout and "Passed" in ok.stdout
    bad_edit(str(repo / "specs"))
    r = subprocess.run(cmd + ["specs/m16n8k16.yaml", "specs/m8n8k4.yaml"], cwd=repo, env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 1
    assert "Failed" in r.stdout
    assert "specs/m16n8k16.yaml:30:17: error: A.f16 injective refuted" in r.stdout


def test_this_repositorys_own_hook(tmp_path):
    """The local hooks of .pre-commit-config.yaml (language: system) on a copy of the specs."""
    repo = tmp_path / "r"
    shutil.copytree(SPECS, repo / "specs")
    shutil.copytree(os.path.join(ROOT, "reports"), repo / "reports")
    shutil.copy(os.path.join(ROOT, ".pre-commit-config.yaml"), repo)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "x")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"), PATH=BIN + os.pathsep + os.environ["PATH"])
    bad_edit(str(repo / "specs"))
    r = subprocess.run([os.path.join(BIN, "pre-commit"), "run", "--color", "never", "--files", "specs/m16n8k16.yaml"],
                       cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "specs/m16n8k16.yaml:30:17: error: A.f16 injective refuted" in r.stdout
    assert "checker crosscheck" in r.stdout


def test_the_gate_fails_on_unknown(run, monkeypatch):
    """z3 answering `unknown` (a timeout, say) is never a pass: exit 1, and an error in SARIF."""
    from checker.smt import solver

    monkeypatch.setattr(solver, "_solve", lambda *a: solver.Outcome("unknown", reason="timeout (forced by this test)"))
    r = run("prove", os.path.join(SPECS, "m8n8k4.yaml"), "--jobs", "1", "--format", "sarif")
    assert r.code == 1
    errors = [x for x in json.loads(r.out)["runs"][0]["results"] if x["level"] == "error"]
    assert errors and all(x["properties"]["verdict"] == "UNKNOWN" for x in errors)
    assert "unknown (z3 gave no answer: never a pass)" in errors[0]["message"]["text"]
