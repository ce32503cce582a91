"""The command line, in process: outputs, formats and exit codes (design.md section 4)."""
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import CASES, ROOT, SPECS

M256 = os.path.join(SPECS, "m16n8k256.yaml")
BAD_INJECTIVE = os.path.join(CASES, "mutants", "injective-mask", "m16n8k256.yaml")


def test_prove_text_lists_errata_and_exits_0(run):
    r = run("prove", SPECS)
    assert r.code == 0
    assert "note: erratum confirmed: A.b1 injective: as printed: A.b1 is not injective: " \
           "lane 0 a96 and lane 3 a32 both hold A[8][128]" in r.out
    assert f"replay: checker eval {M256} --fragment A.b1 --lane 0 --i 96 --as-printed 1" in r.out
    # what proves is counted by the registries (a property or theorem family added proves more:
    # CONTRIBUTING's worked examples), so those counts are the README's, held to the tool by
    # test_the_readme_quotes_the_tool; what fails and what the specs hold is fixed here
    last = SUMMARY.match(r.out.rstrip().splitlines()[-1])
    assert last and {k: int(v) for k, v in last.groupdict().items() if k not in ("proved", "t_proved")} == {
        "specs": 30, "fragments": 264, "refuted": 0, "unknown": 0, "spec_errors": 0, "errata": 32,
        "relations": 1, "t_declared": 11, "t_failed": 0}, r.out.rstrip().splitlines()[-1]


def test_prove_json_contract(run):
    r = run("prove", M256, "--format", "json")
    data = json.loads(r.out)
    assert set(data["summary"]) >= {"proved", "refuted", "unknown", "spec_errors", "errata_confirmed"}
    for x in data["results"]:
        assert set(x) >= {"spec", "fragment", "property", "verdict", "seconds", "location",
                          "counterexample", "erratum"}
    # the file's own errata (its scope adds m16n8k16 and the relations that name it)
    err = [x for x in data["results"] if x["erratum"] and x["spec"] == M256]
    assert {x["property"] for x in err} == {"injective", "covers"}
    inj = next(x for x in err if x["property"] == "injective")
    assert inj["verdict"] == "REFUTED" and inj["location"] == f"{M256}:29:22"
    assert inj["counterexample"]["lanes"] == [0, 3] and inj["counterexample"]["cell"] == [8, 128]
    assert all(x["counterexample"] is None for x in data["results"] if x["verdict"] == "PROVED")


# the last line of `checker prove`'s text: fragments' counts, then theorems' apart
SUMMARY = re.compile(r"(?P<specs>\d+) specs?, (?P<fragments>\d+) fragments: (?P<proved>\d+) proved, "
                     r"(?P<refuted>\d+) refuted, (?P<unknown>\d+) unknown, (?P<spec_errors>\d+) spec errors; "
                     r"(?P<errata>\d+) errata confirmed; (?:(?P<relations>\d+) relations files?; )?theorems: "
                     r"(?P<t_proved>\d+) proved, (?P<t_declared>\d+) refuted as declared, (?P<t_failed>\d+) failed")


@pytest.mark.parametrize("path", [SPECS, os.path.dirname(BAD_INJECTIVE)])
def test_prove_json_summary_is_the_text_summary_by_the_documented_arithmetic(run, tmp_path, path):
    """The JSON `summary` counts fragments' results and theorems together, the text apart: each
    field is the sum the README's table of them gives (and docs/api.md for Proof.summary). Proved
    on every spec (errata, theorems' wording errata, declared refutations, a relations file) and
    on a mutant that fails (refuted properties and a failed theorem)."""
    out = tmp_path / "p.json"
    r = run("prove", path, "--format", "json", "--output", str(out))  # the text still goes to stdout
    text = {k: int(v or 0) for k, v in SUMMARY.fullmatch(r.out.rstrip().splitlines()[-1].rsplit(" (", 1)[0])
            .groupdict().items()}
    data = json.loads(out.read_text())
    s, results = data["summary"], data["results"]
    assert text["proved"] + text["refuted"] + text["t_failed"] > 0
    assert s["specs"] == text["specs"] + text["relations"]
    assert s["proved"] == text["proved"] + text["t_proved"]
    assert s["refuted"] + s["unknown"] + s["spec_errors"] == \
        text["refuted"] + text["unknown"] + text["spec_errors"] + text["t_failed"]
    assert s["errata_confirmed"] == text["errata"]
    assert s["declared_refutations"] == text["t_declared"]
    wording = sum(x["erratum"] for x in results if x["subject"] is not None)
    assert s["theorems"] == text["t_proved"] + text["t_declared"] + text["t_failed"] + wording
    assert text["fragments"] == len({(x["spec"], x["fragment"]) for x in results
                                     if x["subject"] is None and x["fragment"]})
    assert set(s) == {"specs", "proved", "refuted", "unknown", "spec_errors", "errata_confirmed",
                      "declared_refutations", "theorems", "seconds", "cached"}


def test_refuted_spec_exits_1_with_line_and_counterexample(run):
    r = run("prove", BAD_INJECTIVE)
    assert r.code == 1
    line = next(ln for ln in r.out.splitlines() if "error:" in ln and "is not injective" in ln)
    assert line.startswith(f"{BAD_INJECTIVE}:58:22: error: B.b1 injective refuted: ")
    assert "lane 0 b16 and lane 1 b0 both hold B[16][0]" in line
    assert f"replay: checker eval {BAD_INJECTIVE} --fragment B.b1 --lane 0 --i 16" in r.out


def test_replay_command_reproduces_the_counterexample(run):
    a = run("eval", BAD_INJECTIVE, "--fragment", "B.b1", "--lane", "0", "--i", "16")
    b = run("eval", BAD_INJECTIVE, "--fragment", "B.b1", "--lane", "1", "--i", "0")
    assert a.code == b.code == 0
    assert "holds B[16][0]" in a.out and "holds B[16][0]" in b.out


def test_eval_as_printed(run):
    r = run("eval", M256, "--fragment", "A.b1", "--lane", "3", "--i", "32", "--as-printed", "1")
    assert "holds A[8][128]" in r.out and f"col = 128   piece 1 at {M256}:29:22" in r.out
    r = run("eval", M256, "--fragment", "A.b1", "--lane", "3", "--i", "32")
    assert "holds A[8][96]" in r.out


def test_eval_of_printed_text_that_does_not_parse(run):
    r = run("eval", os.path.join(SPECS, "m16n8k16.yaml"), "--fragment", "A.f64", "--lane", "0", "--i", "1",
            "--as-printed", "1")
    assert r.code == 3 and "does not parse" in r.err and "m16n8k16.yaml:50:44" in r.err


def test_where_as_printed_replays_a_hole_of_the_printed_text(run):
    """A covers refutation has no point to evaluate: its replay asks `where` about the cell, of
    the printed text with --as-printed as eval does."""
    r = run("prove", M256)
    assert f"replay: checker where {M256} --fragment A.b1 --row 8 --col 0 --as-printed 1" in r.out
    r = run("where", M256, "--fragment", "A.b1", "--row", "8", "--col", "0", "--as-printed", "1")
    assert r.code == 1
    assert r.out == ("A[8][0] in m16n8k256 A.b1 as printed (erratum 1): no lane holds it (the printed text leaves "
                     "this cell to no lane, as `checker prove` says)\n")
    r = run("where", M256, "--fragment", "A.b1", "--row", "8", "--col", "0")
    assert r.code == 0 and "lane 0, element a32" in r.out  # the reading holds it
    r = run("where", M256, "--fragment", "A.b1", "--row", "8", "--col", "128", "--as-printed", "1", "--format", "json")
    w = json.loads(r.out)
    assert w["as_printed"] == 1 and [(h["lane"], h["i"]) for h in w["holders"]] == [(0, 96), (3, 32)]
    assert not w["unique"]
    bad = run("where", M256, "--fragment", "A.b1", "--row", "8", "--col", "0", "--as-printed", "2")
    assert bad.code == 2 and "A.b1 has 1 erratum; --as-printed takes 1" in bad.err
    r = run("where", os.path.join(SPECS, "m16n8k16.yaml"), "--fragment", "A.f64", "--row", "0", "--col", "0",
            "--as-printed", "1")
    assert r.code == 3 and "does not parse" in r.err and "m16n8k16.yaml:50:44" in r.err


def test_where_as_printed_places_registers_by_the_printed_element_list(run):
    """m16n8k16 C.int's .f16 row is printed `c0, c1, c1, c2`: as printed, c3 is in no .f16
    register and c1 in two. The register lines were computed from the element's index, so
    `--as-printed` answered as the reading does."""
    k16 = os.path.join(SPECS, "m16n8k16.yaml")
    r = run("where", k16, "--fragment", "C.int", "--row", "8", "--col", "1", "--as-printed", "2", "--format", "json")
    (h,) = json.loads(r.out)["holders"]
    f16 = [x for x in h["registers"] if x["types"] == ["f16"]]
    assert h["element"] == "c3" and f16 == [{"types": ["f16"], "register": None, "count": 2, "kind": "f16x2",
                                            "bits": None, "listed": "c0, c1, c1, c2"}]
    r = run("where", k16, "--fragment", "C.int", "--row", "8", "--col", "1", "--as-printed", "2")
    assert "      .f16: in no register: the element list (c0, c1, c1, c2) does not name c3\n" in r.out
    r = run("where", k16, "--fragment", "C.int", "--row", "0", "--col", "1", "--as-printed", "2")
    assert ("      .f16: register 0 of 2 .f16x2, bits 16..31\n"
            "      .f16: register 1 of 2 .f16x2, bits 0..15\n") in r.out
    r = run("where", k16, "--fragment", "C.int", "--row", "8", "--col", "1")  # the reading: c3 is register 1's high half
    assert "      .f16: register 1 of 2 .f16x2, bits 16..31\n" in r.out and "no register" not in r.out
    # erratum 1 of C.int is its caption's: the layout as printed is the reading's, which was answered
    # as "as printed (erratum 1)"
    for argv in (("where", k16, "--fragment", "C.int", "--row", "8", "--col", "1"),
                 ("eval", k16, "--fragment", "C.int", "--lane", "0", "--i", "3")):
        r = run(*argv, "--as-printed", "1")
        assert r.code == 2 and r.out == "", r.out
        assert ("erratum 1 of C.int is of its words (caption): the layout is the same as printed; --as-printed "
                "takes an erratum of its layout (2)") in r.err, r.err


def test_table_json(run):
    r = run("table", M256, "--fragment", "A.b1", "--format", "json")
    (t,) = json.loads(r.out)
    assert (t["shape"], t["id"], t["operand"], t["rows"], t["cols"]) == ("m16n8k256", "A.b1", "A", 16, 256)
    assert len(t["entries"]) == 32 * 128
    cells = {(row, col) for _, _, row, col in t["entries"]}
    assert len(cells) == 16 * 256  # the reading, not the printed text
    assert [0, 96, 8, 128] in t["entries"]


def test_table_json_computations(run):
    r = run("table", os.path.join(SPECS, "m8n8k4.yaml"), "--fragment", "C.f32", "--format", "json")
    (t,) = json.loads(r.out)
    assert t["computations"][0] == [0, 1, 2, 3, 16, 17, 18, 19]


def test_table_text_grid(run):
    r = run("table", os.path.join(SPECS, "m8n8k32.yaml"), "--fragment", "C.s32")
    assert r.code == 0
    lines = r.out.splitlines()
    assert lines[0].startswith("m8n8k32 C.s32 (C, 8x8")
    assert lines[2].split()[:3] == ["0", "T0:c0", "T0:c1"]


def test_validate(run):
    assert run("validate", SPECS).code == 0
    r = run("validate", os.path.join(CASES, "bad", "formula-unknown-name"))
    assert r.code == 3 and "unknown name 'groupid'" in r.err


def test_usage_errors(run):
    assert run().code == 2
    assert run("prove").code == 2
    r = run("prove", os.path.join(CASES, "bad", "no-such-dir"))
    assert r.code == 2 and "no such file" in r.err
    r = run("prove", os.path.join(SPECS, "schema"))
    assert r.code == 2 and "nothing was checked" in r.err
    r = run("eval", M256, "--fragment", "Z.z", "--lane", "0", "--i", "0")
    assert r.code == 2 and "has no fragment 'Z.z'" in r.err
    r = run("diff", os.path.join(CASES, "bad", "no-such-file.yaml"), M256)
    assert r.code == 2 and "no such file" in r.err
    r = run("diff", SPECS, M256)  # a folder is there, so not "no such file"
    assert r.code == 2 and "not a spec file" in r.err and "no such file" not in r.err
    r = run("eval", M256, "--fragment", "A.b1", "--lane", "40", "--i", "0")
    assert r.code == 2


def test_dump_smt(tmp_path, run):
    r = run("prove", M256, "--dump-smt", str(tmp_path))
    assert r.code == 0
    names = os.listdir(tmp_path)
    assert {f"m16n8k256.A.b1.{p}.smt2" for p in ("defined", "in-range", "injective")} <= set(names)  # one query each
    text = (tmp_path / next(n for n in names if n.startswith("m16n8k256.A.b1.printed.injective"))).read_text()
    assert text.startswith("; query m16n8k256.A.b1.printed :: injective") and "(check-sat)" in text
    # every dump docs/proofs.md names is one a run writes (it named `<fragment>.all.smt2` for every
    # fragment, a query removed for speed's sake): `<fragment>` and `<property>` stand for
    # m16n8k256's A.b1 and each of its point properties, the other names are the files themselves
    for spec in ("m8n8k4.yaml", "m64nNk16.yaml"):  # each in a process of its own, as a user runs it:
        # a process asks a wgmma map's instances once (checker/smt/instances.py), so dumps them once
        proc = subprocess.run([sys.executable, "-m", "checker", "prove", os.path.join(SPECS, spec), "--dump-smt",
                               str(tmp_path), "--no-cache"], capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert proc.returncode == 0, proc.stderr
    names = set(os.listdir(tmp_path))
    with open(os.path.join(ROOT, "docs", "proofs.md"), encoding="utf-8") as fh:
        quoted = set(re.findall(r"`([^`\s]+\.smt2)`", fh.read()))
    assert quoted, "docs/proofs.md names no dump"
    from checker.properties import PROPERTIES
    from checker.properties.instances import SHARED

    for name in sorted(quoted):
        if "every-instance" in name and set(PROPERTIES) - {"fragment-shape", "chunk"} != SHARED:
            continue  # a property added (CONTRIBUTING's worked example): each instance on its own
        wanted = {name.replace("<fragment>", "m16n8k256.A.b1").replace("<property>", p)
                  for p in ("defined", "in-range", "injective")}
        assert wanted <= names, (name, sorted(wanted - names))


def test_no_cross_check_gives_the_same_verdicts(run):
    a = json.loads(run("prove", SPECS, "--format", "json").out)
    b = json.loads(run("prove", SPECS, "--format", "json", "--no-cross-check").out)
    strip = lambda rs: [(x["fragment"], x["property"], x["verdict"], json.dumps(x["counterexample"])) for x in rs]  # noqa: E731
    assert strip(a["results"]) == strip(b["results"])


def test_python_dash_m_entry_point():
    proc = subprocess.run([sys.executable, "-m", "checker", "prove", M256], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and "errata confirmed" in proc.stdout


def test_every_command_has_a_description_examples_and_one_name_for_the_spec(run):
    from checker import commands

    for c in commands.ALL:
        r = run(c.NAME, "--help")
        assert r.code == 0, c.NAME
        usage, _, rest = r.out.partition("\n\n")
        assert rest.split("\n\n")[0].strip() and not rest.startswith("positional"), f"{c.NAME}: no description"
        examples = r.out.split("examples:\n\n", 1)[1].splitlines()
        assert examples and all(e.startswith(f"  checker {c.NAME}") for e in examples), c.NAME
        assert "PATH" not in usage and " spec" not in usage, f"{c.NAME}: the spec argument is SPEC: {usage}"
        if c.NAME not in ("schema", "report"):
            assert "SPEC" in usage, c.NAME
        if c.NAME != "report":  # report writes a folder (--out)
            assert "--output FILE" in usage, c.NAME


def test_a_mistyped_command_or_choice_names_the_closest(run):
    r = run("prve", "specs/")
    assert r.code == 2 and "unknown command 'prve': did you mean 'prove'?" in r.err
    r = run("exprot")
    assert r.code == 2 and "did you mean 'export'?" in r.err
    r = run("zzzz")
    assert r.code == 2 and "did you mean" not in r.err and "checker --help" in r.err
    r = run("prove", M256, "--format", "jsn")
    assert r.code == 2 and "did you mean 'json'?" in r.err


def test_a_mistyped_option_names_the_closest(run):
    """argparse reported the required option an unknown one stood for (`--fragmnt`: "required:
    --fragment"), and a subcommand's unknown option as "unrecognized arguments", naming no fix."""
    r = run("where", M256, "--fragmnt", "A.b1", "--row", "1", "--col", "1")
    assert r.code == 2 and "unknown option --fragmnt: did you mean --fragment?" in r.err, r.err
    r = run("prove", M256, "--jbos", "2")
    assert r.code == 2 and "unknown option --jbos: did you mean --jobs?" in r.err, r.err
    r = run("prove", M256, "--zzzz=3")
    assert r.code == 2 and "unknown option --zzzz (checker prove --help lists the options)" in r.err, r.err
    r = run("where", M256, "--fragment", "A.b1", "--row", "-1", "--col", "1")  # a negative value is not an option
    assert r.code == 2 and "--row takes 0..15" in r.err, r.err


def test_a_figure_only_fragment_or_a_mistyped_variant(run):
    """A fragment the document gives only as a figure was answered "has no fragment 'B.sp.tf32'.
    Did you mean 'A.sp.tf32'?", sending the user to another operand; a variant one letter off was
    answered with the list of 16 alone."""
    k16 = os.path.join(SPECS, "m16n8k16.yaml")
    for argv in (("where", k16, "--fragment", "B.sp.tf32", "--row", "0", "--col", "0"),
                 ("export", k16, "--fragment", "B.sp.tf32", "--to", "cute")):
        r = run(*argv)
        assert r.code == 2 and "'B.sp.tf32' is given only as a figure in the document" in r.err, r.err
        assert "Did you mean" not in r.err
    r = run("simulate", k16, "--fragment-set", "row.col.f32.f16.f16.f33")
    assert r.code == 2 and "did you mean 'row.col.f32.f16.f16.f32'? It has " in r.err, r.err


def test_simulate_lists_variants_as_json_and_refuses_a_spec_it_cannot_run(run):
    """The list of variants honours --format json; a wgmma or data-movement spec, which has none,
    was an empty list and exit 0 (and `--fragment-set x` said "it has " with nothing after)."""
    k16 = os.path.join(SPECS, "m16n8k16.yaml")
    text = run("simulate", k16)
    listed = json.loads(run("simulate", k16, "--format", "json").out)
    assert text.code == 0 and len(listed) == 16
    assert [f"{v['id']}    {v['instruction']}" for v in listed] == text.out.splitlines()
    for name in ("m64nNk16.yaml", "ldmatrix.m8n8.yaml", "m64nNk16.sp.yaml"):
        for extra in ((), ("--format", "json"), ("--fragment-set", "x")):
            r = run("simulate", os.path.join(SPECS, name), *extra)
            assert r.code == 2 and r.out == "", (name, extra, r.out)
            assert "has no variant the reference model runs: checker simulate takes a dense mma.sync spec" in r.err


def test_a_fragment_id_in_the_wrong_case_or_with_a_parameter_it_lacks(run):
    r = run("where", M256, "--fragment", "a.b1", "--row", "1", "--col", "1")
    assert r.code == 2 and "Did you mean 'A.b1'?" in r.err, r.err  # not 'B.b1'
    r = run("where", M256, "--fragment", "A.b1[N=64]", "--row", "1", "--col", "1")
    assert r.code == 2 and "A.b1 takes no N; name it 'A.b1'." in r.err, r.err


@pytest.mark.parametrize("option, value", [("--triton", "no.json"), ("--table", "no.csv"), ("--cute-copy", "no.yaml"),
                                           ("--python", "no.py:f"), ("--python", os.path.join("no", "where:f")),
                                           ("--known-gaps", "no.yaml")])
def test_an_input_file_an_option_names_that_does_not_exist_is_a_usage_error(run, tmp_path, option, value):
    """As a spec path that does not exist (exit 2): these said exit 3, "cannot read file", at 1:1 of
    a file that is not there. One that exists but is malformed stays the input's located error."""
    value = str(tmp_path / value)
    spec = os.path.join(SPECS, "m16n8k16.yaml")
    argv = ("mutate", spec, option, value) if option == "--known-gaps" else ("compare", spec, "--fragment", "A.f16", option, value)
    r = run(*argv)
    where = value.rpartition(":")[0] if option == "--python" else value
    assert r.code == 2 and f"{option}: no such file: {where!r}" in r.err and not r.out, r.err
    (tmp_path / "bad.csv").write_text("0,0,x,1\n", encoding="utf-8")
    r = run("compare", spec, "--fragment", "A.f16", "--table", str(tmp_path / "bad.csv"))
    assert r.code == 3 and f"{tmp_path / 'bad.csv'}:1:" in r.err


@pytest.mark.parametrize("argv", [("where", "--fragment", "A.b1", "--row", "0", "--col", "0"),
                                  ("export", "--fragment", "A.b1", "--to", "cute"),
                                  ("eval", "--fragment", "A.b1", "--lane", "0", "--i", "0"),
                                  ("table",), ("simulate",),
                                  ("compare", "--fragment", "A.b1", "--cute", "1:1")])
def test_a_command_of_one_spec_given_a_folder_relations_or_nothing(run, argv):
    """One usage error (exit 2) for every command that takes one spec: `where` and `export` said
    exit 3 for a missing file, the others exit 2; a folder was read as its first spec file (`table
    specs/` drew ldmatrix.m16n16), relations.yaml refused with "unknown key 'relations'"."""
    command, rest = argv[0], argv[1:]
    r = run(command, os.path.join(CASES, "bad", "no-such-file.yaml"), *rest)
    assert r.code == 2 and "no such file or folder" in r.err and not r.out, r.err
    r = run(command, SPECS, *rest)
    assert r.code == 2 and "is a folder: this command takes one spec file" in r.err and not r.out, r.err
    r = run(command, os.path.join(SPECS, "relations.yaml"), *rest)
    assert r.code == 2 and "holds relations between fragments, not a spec" in r.err and not r.out, r.err


def test_a_spec_that_does_not_load_names_the_files_it_stopped(run, tmp_path):
    """relations.yaml, stopped by a spec that does not load, printed the spec's own error line
    again word for word, naming neither itself nor what it did not check."""
    import shutil

    specs = tmp_path / "specs"
    shutil.copytree(SPECS, specs)
    k16 = specs / "m16n8k16.yaml"
    k16.write_text(k16.read_text().replace("row = groupID for ai where 0 <= i < 2", "row = groupId for ai where 0 <= i < 2", 1))
    r = run("prove", str(k16))
    assert r.code == 3, r.code  # a spec that does not load
    assert f"{k16}:30:17: error: {specs / 'relations.yaml'} not checked: unknown name 'groupId'" in r.out, r.out


def test_version():
    import checker

    proc = subprocess.run([sys.executable, "-m", "checker", "--version"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == f"checker (ptx-fragment-checker) {checker.__version__}"


def test_output_file_for_a_command_that_prints(run, tmp_path):
    out = tmp_path / "where.json"
    r = run("where", os.path.join(SPECS, "m16n8k16.yaml"), "--fragment", "C.float", "--row", "9", "--col", "3",
            "--format", "json", "--output", str(out))
    assert r.code == 0 and r.out == ""
    assert json.loads(out.read_text())["holders"][0]["lane"] == 5
    r = run("validate", SPECS, "--output", str(tmp_path / "no-such-folder" / "v.txt"))
    assert r.code == 2 and "--output" in r.err and "no such folder" in r.err


def test_table_bands_wide_grids(run):
    r = run("table", M256, "--fragment", "A.b1")
    lines = r.out.splitlines()
    assert max(map(len, lines)) < 160  # 256 columns at one line each would be over 2300 characters
    bands = [ln for ln in lines if ln.startswith("columns ")]
    assert bands[0] == "columns 0..15 of 256" and len(bands) == 16
    # every cell is still drawn once: 16 rows x 256 columns of T<lane>:a<i>
    assert sum(ln.count("T") for ln in lines) == 16 * 256
    assert run("table", M256, "--fragment", "A.b1", "--band", "0").out.count("columns ") == 0
    assert run("table", M256, "--band", "-1").code == 2


def test_probe_emit_ptx_writes_kernels_inputs_and_expected_d(run, tmp_path):
    import numpy as np

    r = run("probe", os.path.join(SPECS, "m8n8k32.yaml"), "--emit-ptx", str(tmp_path))
    assert r.code == 0
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    variants = run("simulate", os.path.join(SPECS, "m8n8k32.yaml")).out.splitlines()
    assert sorted(m["instruction"] for m in manifest) == sorted(ln.split()[1] for ln in variants)
    m = manifest[0]
    ptx = (tmp_path / m["ptx"]).read_text()
    assert f".target {m['target']}" in ptx and f".entry {m['kernel']}(" in ptx and m["instruction"] in ptx
    for op, o in m["operands"].items():
        size = (tmp_path / o["file"]).stat().st_size
        assert size == m["warps"] * 32 * o["registers"] * o["bits"] // 8, op
    # the expected D is the reference model's, from the inputs written beside it
    from checker.semantics.execute import execute, geometries
    from checker.semantics.variants import find
    from checker.spec.load import load_spec

    v, _ = find(load_spec(os.path.join(SPECS, "m8n8k32.yaml")), m["variant"])
    geo = geometries(v)
    regs = {op: np.fromfile(tmp_path / o["file"], dtype="<u4" if o["bits"] == 32 else "<u8")
            .reshape(m["warps"], 32, o["registers"]).astype(np.uint64) for op, o in m["operands"].items()}
    assert np.array_equal(execute(v, regs["A"], regs["B"], regs["C"], geo), regs["D"])
    assert "grid (`warps`, 1, 1), block (32, 1, 1)" in (tmp_path / "README.md").read_text()
    assert run("probe", SPECS, "--emit-ptx", str(tmp_path), "--synthetic").code == 2


def _readme() -> str:
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        return fh.read()


def test_the_readme_quotes_the_tool(run):
    """The numbers the README quotes are the tool's: the summary lines of `checker prove` (all but
    the time), the scope of one file, the count of errata."""
    readme = _readme()
    for argv in ((SPECS,), (M256,)):
        last = run("prove", *argv).out.rstrip().splitlines()[-1]
        counts = last.rsplit(" (", 1)[0]
        quoted = [ln for ln in readme.splitlines() if ln.startswith(counts.split(":")[0] + ":")]
        assert quoted and all(ln.rsplit(" (", 1)[0] == counts for ln in quoted), (counts, quoted)
    scope = next(ln for ln in run("prove", os.path.join(SPECS, "m16n8k16.yaml")).out.splitlines()
                 if ln.startswith("scope:"))
    relations = scope.split(": ", 2)[2].split(" relations")[0]
    specs = len(scope.split("; ", 1)[1].split(" (README")[0].split(", "))
    assert f"also\nproves the {relations} relations that read m16n8k16 and the {specs} specs they name" in readme
    wgmma = [s for s in scope.split("; ", 1)[1].split(" (README")[0].split(", ") if "m64nN" in s]
    assert f"and the {['no', 'one', 'two', 'three', 'four', 'five', 'six'][len(wgmma)]} `wgmma` specs whose theorems" in readme
    summary = run("conformance", SPECS).out.rstrip().splitlines()[-1]
    assert summary.split(" reference entries")[1] and summary in readme.splitlines(), summary
    listed = json.loads(run("errata", SPECS, "--format", "json").out)
    errata = listed["counts"]["errata"]
    assert f"`checker errata specs/` lists all {errata} " in readme
    # the catalogue's errata column, mma and wgmma, counts every erratum of the spec (it counted
    # only the layouts' in the mma table, where m16n8k16 said 5 of its 14)
    per_spec = {}
    for e in listed["errata"]:
        shape = os.path.splitext(os.path.basename(e["spec"]))[0]
        per_spec[shape] = per_spec.get(shape, 0) + 1
    column = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\| `(m[0-9]+n[0-9N]+k[0-9]+(?:\.sp)?)` \|.*\| ([0-9]+) \|$",
                                                               readme, re.M)}
    assert len(column) == 18 and column == {k: per_spec.get(k, 0) for k in column}, (column, per_spec)
    # the support table's rows (reports/isa-coverage.md), dense and sparse apart: the README lumped
    # the 12 dense `.kind::` rows in with mma.sp ("47 of the 57")
    with open(os.path.join(ROOT, "reports", "isa-coverage.md"), encoding="utf-8") as fh:
        rows = [ln.split(" | ") for ln in fh.read().splitlines() if ln.startswith("| `mma")]
    dense = [r for r in rows if not r[0].startswith("| `mma.sp")]
    sparse = [r for r in rows if r[0].startswith("| `mma.sp")]
    done = lambda rs: sum(r[4] != "—" for r in rs)  # noqa: E731 - the "specified" column
    prose = " ".join(readme.split())
    assert (f"{done(dense)} of the {len(dense)} dense `mma` rows (`.kind::` forms included) and {done(sparse)} of "
            f"the {len(sparse)} `mma.sp` rows of the support table are specified and proved, "
            f"{done(rows)} of {len(rows)} in all") in prose, (done(dense), len(dense), done(sparse), len(sparse))


def test_fragment_counts_agree_between_commands(run):
    """validate, prove and the report count the same fragments: those with formulas and those the
    document gives only as figures."""
    validated = json.loads(run("validate", SPECS, "--format", "json").out)
    total = sum(x.get("fragments", 0) for x in validated)
    drawn = sum(x.get("figures_only", 0) for x in validated)
    last = run("prove", SPECS).out.rstrip().splitlines()[-1]
    assert f", {total} fragments:" in last and drawn == 4
    import checker

    specs = [checker.load(os.path.join(SPECS, n)) for n in sorted(os.listdir(SPECS))
             if n.endswith(".yaml") and n not in ("relations.yaml", "untranscribed.yaml")]
    assert sum(len(s.ids) + len(s.figures_only) for s in specs) == total
    with open(os.path.join(ROOT, "reports", "README.md"), encoding="utf-8") as fh:
        summary = fh.read()
    assert f"| fragments with formulas (each proved) | {total - drawn} |" in summary
    assert f"| fragments the document gives only as figures (their tables checked) | {drawn} |" in summary
