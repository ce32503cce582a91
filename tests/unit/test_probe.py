"""PTX generation and the assembler check (no GPU): every seed variant assembles for each target
that supports it, and a spec whose registers the assembler rejects is named at its line."""
import json
import os
import shutil

import pytest

from conftest import CASES, SPECS

# .ci/run sets CHECKER_REQUIRE_CUDA: its machines have ptxas, so there a missing one fails, not skips
pytestmark = pytest.mark.skipif(not os.environ.get("CHECKER_REQUIRE_CUDA") and shutil.which("ptxas") is None
                                and not os.path.exists("/usr/local/cuda/bin/ptxas"),
                                reason="needs NVIDIA's ptxas (CUDA toolkit)")


@pytest.fixture(scope="module")
def compiled():
    """One --compile-only run over every seed variant and target, shared by the tests below."""
    import io

    from checker.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(["probe", SPECS, "--compile-only", "--arch", "sm_80,sm_89,sm_90", "--format", "json"], out, err)
    assert code == 0, out.getvalue() + err.getvalue()
    # the ldmatrix / stmatrix / movmatrix kernels: tests/unit/test_movement_probe.py
    return [x for x in json.loads(out.getvalue()) if x["instruction"].startswith("mma.")]


def test_every_variant_assembles_from_its_minimum_target(compiled):
    """The support table's minimum targets, checked against ptxas: every variant assembles for
    sm_90, and each one skipped below it is skipped because the table says it needs more."""
    rows = compiled
    by_arch = {}
    for x in rows:
        by_arch.setdefault(x["arch"], []).append(x["result"])
    # 70 variants: the 16 fp8 ones (m16n8k16, m16n8k32) need sm_89, the 3 m16n8k{4,8,16} .f64 ones sm_90
    assert by_arch["sm_80"].count("assembled") == 51 and by_arch["sm_80"].count("skipped") == 19
    assert by_arch["sm_89"].count("assembled") == 67 and by_arch["sm_89"].count("skipped") == 3
    assert by_arch["sm_90"] == ["assembled"] * 70
    seeds = {"m16n8k16", "m16n8k256", "m8n8k32", "m8n8k4"}
    assert sum(x["arch"] == "sm_90" and x["instruction"].split(".")[3] in seeds for x in rows) == 35


def test_a_register_count_the_assembler_rejects_names_the_spec_line(run):
    path = os.path.join(CASES, "mutants", "shape-register-count", "m16n8k16.yaml")
    r = run("probe", path, "--compile-only", "--arch", "sm_80")
    assert r.code == 1
    assert f"{path}:22:13: error: ptxas (sm_80) rejects mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in r.out
    assert "Argument vector size mismatch for instruction 'mma'" in r.out


def test_the_kernel_only_moves_registers():
    from checker.probe.ptx import generate
    from checker.semantics.variants import variants
    from checker.spec.load import load_spec

    v = next(x for x in variants(load_spec(os.path.join(SPECS, "m16n8k256.yaml"))) if x.op == "and")
    text = generate(v, 80)
    assert "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%d0, %d1, %d2, %d3}, " \
           "{%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3};" in text
    assert text.count("ld.global") == 4 + 2 + 4 and text.count("st.global") == 4


def test_running_without_a_gpu_is_a_clear_error(run):
    r = run("probe", os.path.join(SPECS, "m8n8k4.yaml"))
    assert r.code == 2 and "--compile-only and --synthetic need" in r.err  # no cuda-python, or no GPU


def test_bad_arch_is_a_usage_error(run):
    r = run("probe", SPECS, "--compile-only", "--arch", "hopper")
    assert r.code == 2 and "--arch takes targets like sm_80" in r.err


def test_a_target_this_ptxas_does_not_know_is_skipped_not_blamed_on_the_spec(run):
    """`--arch sm_999` (or sm_70, which CUDA 13 dropped) was "specs/m8n8k4.yaml:33:13: error: ptxas
    (sm_999) rejects ...", exit 1: the toolkit's limit, said as the spec's fault."""
    from checker.probe.assemble import known_targets, ptxas, version

    assert "sm_90" in known_targets(ptxas()) and "sm_999" not in known_targets(ptxas())
    path = os.path.join(SPECS, "m8n8k4.yaml")
    r = run("probe", path, "--compile-only", "--arch", "sm_999,sm_90", "--format", "json")
    rows = [x for x in json.loads(r.out) if x["instruction"].startswith("mma.")]
    assert r.code == 0 and len(rows) == 26, r.out + r.err
    for x in rows:
        if x["arch"] == "sm_999":
            assert x["result"] == "skipped" and x["location"] is None
            assert x["message"] == f"{version(ptxas())} cannot target sm_999"
        else:
            assert x["result"] == "assembled"
    r = run("probe", path, "--compile-only", "--arch", "sm_999")
    assert r.code == 0 and "error" not in r.out and "sm_999: 0 assembled, 0 rejected, 13 skipped (" in r.out, r.out


def test_sass_shows_what_runs_on_tensor_cores(compiled):
    """nvdisasm (the [test] extra) reads the SASS: on sm_90 m8n8k4 .f16 has no tensor-core
    instruction, .s4 becomes two .s8 IMMAs and .xor.popc two AND.POPC BMMAs."""
    from checker.probe import sass

    if sass.nvdisasm() is None and not os.environ.get("CHECKER_REQUIRE_CUDA"):
        pytest.skip("needs nvdisasm")
    rows = {x["instruction"].replace("mma.sync.aligned.", ""): x["sass"] for x in compiled if x["arch"] == "sm_90"}
    assert rows["m8n8k4.row.col.f16.f16.f16.f16"]["emulated"] is True
    assert rows["m8n8k4.row.col.f16.f16.f16.f16"]["opcodes"].get("SHFL.IDX", 0) > 0
    assert rows["m8n8k32.row.col.s32.s4.s4.s32"]["opcodes"]["IMMA.8816.S8.S8"] == 2
    assert rows["m16n8k256.row.col.s32.b1.b1.s32.xor.popc"]["opcodes"]["BMMA.168256.AND.POPC"] == 2
    assert rows["m16n8k16.row.col.f32.f16.f16.f32"] == {"opcodes": rows["m16n8k16.row.col.f32.f16.f16.f32"]["opcodes"],
                                                         "tensor_core": 1, "emulated": False}


def test_minimum_versions_and_targets_of_the_support_table_hold_in_ptxas(run):
    """Every variant assembles at the table's minimum PTX version and target, and where the target
    allows a lower version, ptxas rejects that one: the table's version is the true minimum."""
    r = run("probe", SPECS, "--compile-only", "--minimums", "--format", "json")
    rows = json.loads(r.out)
    assert r.code == 0 and len(rows) == 70
    verdicts = [x["verdict"] for x in rows]
    assert verdicts.count("FAILED") == 0 and verdicts.count("confirmed") == 42 and verdicts.count("target") == 28
    fp8_f16 = [x for x in rows if x["instruction"] == "mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e4m3.f16"]
    assert fp8_f16[0]["ptx"] == "8.7" and "requires PTX ISA .version 8.7 or later" in fp8_f16[0]["message"]
    popc = next(x for x in rows if x["instruction"].endswith("m8n8k128.row.col.s32.b1.b1.s32.and.popc"))
    assert (popc["ptx"], popc["sm"]) == ("7.1", "sm_80")


def test_a_table_version_that_is_too_high_fails(run, monkeypatch):
    from checker.probe import minimums

    real = minimums.minimum
    monkeypatch.setattr(minimums, "minimum", lambda v: ("7.1", 80) if v.shape == "m16n8k16" and v.atype == "f16"
                        else real(v))
    r = run("probe", os.path.join(SPECS, "m16n8k16.yaml"), "--compile-only", "--minimums")
    assert r.code == 1
    assert "FAILED    m16n8k16.row.col.f16.f16.f16.f16" in r.out and "also assembles it at PTX 7.0" in r.out


def test_without_nvdisasm_the_note_is_said_once(run, monkeypatch):
    """mma, movement and wgmma variants in one run, no nvdisasm anywhere: the note that SASS
    counts were skipped is one line, not one per family (it was printed twice)."""
    from checker.probe import sass

    monkeypatch.setattr(sass, "nvdisasm", lambda: None)
    specs = [os.path.join(SPECS, n) for n in ("m8n8k4.yaml", "movmatrix.m8n8.yaml", "m64nNk8.yaml")]
    r = run("probe", *specs, "--compile-only", "--arch", "sm_90,sm_90a")
    assert r.code == 0, r.out + r.err
    assert r.out.count("no nvdisasm found") == 1, r.out
    assert r.out.rstrip().endswith("(no nvdisasm found: SASS opcode counts skipped; the [test] and [gpu] extras install it)")
