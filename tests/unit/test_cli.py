"""The command line, in process: outputs, formats and exit codes (design.md section 4)."""
import json
import os
import subprocess
import sys

from conftest import CASES, ROOT, SPECS

M256 = os.path.join(SPECS, "m16n8k256.yaml")
BAD_INJECTIVE = os.path.join(CASES, "mutants", "injective-mask", "m16n8k256.yaml")


def test_prove_text_lists_errata_and_exits_0(run):
    r = run("prove", SPECS)
    assert r.code == 0
    assert "note: erratum confirmed: A.b1 injective: as printed: A.b1 is not injective: " \
           "lane 0 a96 and lane 3 a32 both hold A[8][128]" in r.out
    assert f"replay: checker eval {M256} --fragment A.b1 --lane 0 --i 96 --as-printed 1" in r.out
    assert r.out.rstrip().splitlines()[-1].startswith(
        "17 specs, 88 fragments: 504 proved, 0 refuted, 0 unknown, 0 spec errors; 29 errata confirmed; "
        "1 relations file; theorems: 219 proved, 8 refuted as declared, 0 failed")


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
    r = run("eval", M256, "--fragment", "A.b1", "--lane", "40", "--i", "0")
    assert r.code == 2


def test_dump_smt(tmp_path, run):
    r = run("prove", M256, "--dump-smt", str(tmp_path))
    assert r.code == 0
    names = os.listdir(tmp_path)
    assert "m16n8k256.A.b1.all.smt2" in names  # defined, in-range and injective in one query
    text = (tmp_path / next(n for n in names if n.startswith("m16n8k256.A.b1.printed.injective"))).read_text()
    assert text.startswith("; query m16n8k256.A.b1.printed :: injective") and "(check-sat)" in text


def test_no_cross_check_gives_the_same_verdicts(run):
    a = json.loads(run("prove", SPECS, "--format", "json").out)
    b = json.loads(run("prove", SPECS, "--format", "json", "--no-cross-check").out)
    strip = lambda rs: [(x["fragment"], x["property"], x["verdict"], json.dumps(x["counterexample"])) for x in rs]  # noqa: E731
    assert strip(a["results"]) == strip(b["results"])


def test_python_dash_m_entry_point():
    proc = subprocess.run([sys.executable, "-m", "checker", "prove", M256], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and "errata confirmed" in proc.stdout
