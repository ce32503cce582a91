"""The offline half of the GPU probe: dumps (format, determinism, hostile files), the crosscheck
over the committed dumps, and that it fails, at the formula's line, when a spec or a dump is
changed. The committed dumps are SYNTHETIC (the reference model computed D); tests that need a
dump from a layout other than the spec's make one the same way from a mutated spec."""
import gzip
import json
import os
import shutil

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from conftest import ROOT, SPECS

from checker.probe import dump, patterns, sass
from checker.probe.record import record
from checker.semantics.execute import _dyadic, _rational
from checker.semantics.variants import find
from checker.spec.load import load_spec

SYNTHETIC = os.path.join(ROOT, "reports", "synthetic")


def _variant(shape, ident):
    v, _ = find(load_spec(os.path.join(SPECS, f"{shape}.yaml")), ident)
    return v


def _swap_a_rows(src, dst):
    """m16n8k16 A .f16: rows groupID and groupID + 8 swapped -- still a bijection, so every
    proof about the fragment alone still holds, but it is not the function the mma computes."""
    text = open(src).read()
    text = text.replace("row = groupID for ai where 0 <= i < 2 || 4 <= i < 6\n          groupID + 8 Otherwise",
                        "row = groupID + 8 for ai where 0 <= i < 2 || 4 <= i < 6\n          groupID Otherwise", 1)
    assert "row = groupID + 8 for ai where 0 <= i < 2" in text
    open(dst, "w").write(text)


def test_crosscheck_passes_on_every_committed_dump_and_says_they_are_synthetic(run):
    r = run("crosscheck", SPECS, "--dumps", SYNTHETIC)
    assert r.code == 0, r.out + r.err
    # 70 mma variants, 29 ldmatrix / stmatrix / movmatrix dumps (tests/unit/test_movement_probe.py) and
    # 9 wgmma dumps, 2 of them sparse (tests/unit/test_wgmma_crosscheck.py)
    assert r.out.count("agrees ") == 70 + 29 + 9 and "DISAGREES" not in r.out
    assert "every dump checked is SYNTHETIC" in r.out
    assert "70 dumps (0 hardware, 70 synthetic, 0 of other specs): 70 agree, 0 disagree, 0 malformed" in r.out
    assert "hardware computes" not in r.out


def test_a_mutated_formula_fails_at_its_line(run, tmp_path):
    spec = tmp_path / "m16n8k16.yaml"
    _swap_a_rows(os.path.join(SPECS, "m16n8k16.yaml"), spec)
    r = run("crosscheck", str(spec), "--dumps", SYNTHETIC)
    assert r.code == 1
    line = next(n for n, t in enumerate(open(spec), 1) if "row = groupID + 8 for ai where 0 <= i < 2" in t)
    assert (f"{spec}:{line}:17: error: identifies-A m16n8k16.row.col.f32.f16.f16.f32: [synthetic dump: reference "
            "model, not hardware] lane 0 a0: dump row 0, spec row 8 (256 of 256 slots differ)") in r.out
    assert "error: predicts m16n8k16.row.col.f32.f16.f16.f32" in r.out and "408 of 419 warps differ" in r.out
    assert "DISAGREES m16n8k16.row.col.f32.f16.f16.f32" in r.out
    # the .f16/.bf16 A table is the one mutated; the integer and fp8 tables are untouched
    assert "agrees    m16n8k16.row.col.s32.s8.s8.s32" in r.out


def test_a_device_that_differs_from_the_spec_is_named_per_slot(run, tmp_path):
    """A dump recorded under another layout -- what a GPU disagreeing with the document would
    give -- is reported slot by slot against the unchanged spec."""
    other = tmp_path / "m16n8k16.yaml"
    _swap_a_rows(os.path.join(SPECS, "m16n8k16.yaml"), other)
    v, _ = find(load_spec(str(other)), "row.col.f32.f16.f16.f32")
    record(v, str(other), str(tmp_path / "dumps"), 90)
    r = run("crosscheck", os.path.join(SPECS, "m16n8k16.yaml"), "--dumps", str(tmp_path / "dumps"))
    assert r.code == 1
    assert "lane 0 a0: dump row 8, spec row 0 (256 of 256 slots differ)" in r.out
    assert "specs/m16n8k16.yaml:30:17: error: identifies-A" in r.out.replace(os.sep, "/")


@pytest.mark.parametrize("op,edit", [
    # B .b1 of m16n8k256: k of b0..b3 and b4..b7 (bits of one word) exchanged
    ("B", ("row =      (threadID_in_group * 32) + (i & 0x1F)             for bi where i < 32",
           "row =      (threadID_in_group * 32) + ((i ^ 4) & 0x1F)       for bi where i < 32")),
])
def test_b1_identification_can_fail(run, tmp_path, op, edit):
    src = open(os.path.join(SPECS, "m16n8k256.yaml")).read()
    if edit[0] not in src:
        pytest.fail(f"the seed text changed: {edit[0]!r} is gone")
    spec = tmp_path / "m16n8k256.yaml"
    spec.write_text(src.replace(edit[0], edit[1], 1))
    r = run("crosscheck", str(spec), "--dumps", SYNTHETIC)
    assert r.code == 1
    assert f"error: identifies-{op} m16n8k256.row.col.s32.b1.b1.s32.xor.popc" in r.out
    assert f"error: identifies-{op} m16n8k256.row.col.s32.b1.b1.s32.and.popc" in r.out
    assert "lane 0 b0: dump k 0, spec k 4" in r.out


def test_a_flipped_bit_in_a_dump_is_caught(run, tmp_path):
    d = dump.read(os.path.join(SYNTHETIC, "m8n8k4.row.col.f64.f64.f64.f64.dump.json.gz"))
    regs = dict(d.registers)
    regs["D"] = regs["D"].copy()
    regs["D"][5, 17, 1] ^= np.uint64(1 << 40)
    header = {k: v for k, v in d.header.items() if k not in ("format", "version")}
    dump.write(str(tmp_path / "x.dump.json.gz"), header, regs, {op: 64 for op in "ABCD"})
    r = run("crosscheck", os.path.join(SPECS, "m8n8k4.yaml"), "--dumps", str(tmp_path))
    assert r.code == 1
    assert "1 of 99 warps differ; first: warp 5, lane 17, D register 1" in r.out


def test_inputs_no_model_can_run_are_a_finding_not_a_crash(run, tmp_path):
    """A dump's A holding an .f16 NaN (0x7e00): the model refuses it, and says so."""
    d = dump.read(os.path.join(SYNTHETIC, "m16n8k16.row.col.f32.f16.f16.f32.dump.json.gz"))
    regs = dict(d.registers)
    regs["A"] = regs["A"].copy()
    regs["A"][0, 3, 0] = np.uint64(0x7E00)
    header = {k: v for k, v in d.header.items() if k not in ("format", "version")}
    dump.write(str(tmp_path / "nan.dump.json.gz"), header, regs, {"A": 32, "B": 32, "C": 32, "D": 32})
    r = run("crosscheck", os.path.join(SPECS, "m16n8k16.yaml"), "--dumps", str(tmp_path))
    assert r.code == 1 and "Traceback" not in r.out + r.err
    assert "the reference model cannot run the dump's inputs under this spec" in r.out


def test_dumps_are_deterministic(tmp_path):
    v = _variant("m8n8k32", "row.col.s32.s4.u4.s32")
    a = record(v, os.path.join(SPECS, "m8n8k32.yaml"), str(tmp_path / "a"), 90)
    b = record(v, os.path.join(SPECS, "m8n8k32.yaml"), str(tmp_path / "b"), 90)
    assert open(a, "rb").read() == open(b, "rb").read()
    d = dump.read(a)
    assert d.synthetic and d.header["note"].startswith("SYNTHETIC")
    assert d.header["device"]["name"].startswith("reference model")


def _write_gz(path, payload: bytes):
    with gzip.open(path, "wb") as fh:
        fh.write(payload)


def _good_doc():
    with gzip.open(os.path.join(SYNTHETIC, "m8n8k4.row.col.f64.f64.f64.f64.dump.json.gz")) as fh:
        return json.loads(fh.read())


@pytest.mark.parametrize("name,make,expect", [
    ("not-gzip", lambda p: open(p, "wb").write(b"hello"), "not a gzip file"),
    ("not-json", lambda p: _write_gz(p, b"{oops"), "not JSON"),
    ("not-a-dump", lambda p: _write_gz(p, b"[1, 2]"), "not a probe dump"),
    ("future-version", lambda p: _write_gz(p, json.dumps(dict(_good_doc(), version=2)).encode()),
     "dump format version 2; this checker reads version 1"),
    ("unknown-key", lambda p: _write_gz(p, json.dumps(dict(_good_doc(), extra=1)).encode()),
     "Additional properties are not allowed ('extra' was unexpected)"),
    ("bad-source", lambda p: _write_gz(p, json.dumps(dict(_good_doc(), source="gpu")).encode()),
     "at source: 'gpu' is not one of ['hardware', 'synthetic']"),
    ("variant-not-its-instruction", lambda p: _write_gz(p, json.dumps(dict(_good_doc(), variant="row.col.f32.f16.f16.f32")).encode()),
     "at instruction: mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64, but the dump's shape and variant name "
     "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32"),
    ("shape-not-its-instruction", lambda p: _write_gz(p, json.dumps(dict(_good_doc(), shape="m16n8k4")).encode()),
     "but the dump's shape and variant name mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64"),
    # JSON Schema's "integer" takes 4.0: it reached a slice as a float (a TypeError, a traceback)
    ("integral-float", lambda p: _write_gz(p, json.dumps(_count_as_float(_good_doc())).encode()),
     "at patterns.0.count: expected an integer, found 32.0"),
    ("short-data", lambda p: _write_gz(p, json.dumps(_shorten(_good_doc())).encode()),
     "registers.D holds"),
    ("bomb", lambda p: _write_gz(p, b" " * (dump.MAX_EXPANDED + 10)), "expands to more than 64 MiB"),
])
def test_malformed_dumps_are_located_errors(run, tmp_path, name, make, expect):
    path = tmp_path / f"{name}{dump.SUFFIX}"
    make(str(path))
    r = run("crosscheck", SPECS, "--dumps", str(tmp_path))
    assert r.code == 3, r.out + r.err
    assert f"{path}:1:1: error (malformed): dump" in r.out and expect in r.out
    assert "Traceback" not in r.out + r.err


@pytest.mark.parametrize("name,spec", [
    ("m8n8k16.row.col.s32.u8.s8.s32.dump.json.gz", "m8n8k16"),
    ("m64n8k8.f32.tf32.tf32.a_registers.wgmma.json.gz", "m64nNk8"),
    ("ldmatrix.m8n8.x2.b16.movement.json.gz", "ldmatrix.m8n8"),
])
def test_a_synthetic_dump_relabelled_hardware_is_refused(run, tmp_path, name, spec):
    """Its source alone changed, a synthetic dump counted as the hardware agreeing with the spec.
    Each format's schema ties the source to the device and the note: the relabelled one is
    malformed; with a GPU's device and a note of its own it counts as hardware."""
    with gzip.open(os.path.join(SYNTHETIC, name), "rt") as fh:
        doc = json.load(fh)
    doc["source"] = "hardware"
    path = tmp_path / "relabelled" / name
    path.parent.mkdir()
    _write_gz(str(path), json.dumps(doc).encode())
    r = run("crosscheck", f"specs/{spec}.yaml", "--dumps", str(path.parent))
    assert r.code == 3, r.out + r.err
    assert (f"{path}:1:1: error (malformed): dump: at device.name: a hardware dump names the GPU it ran on, "
            f"not the reference model, found 'reference model") in r.out
    doc["device"] = dict(doc["device"], name="NVIDIA H100 80GB HBM3", sm=90)
    _write_gz(str(path), json.dumps(doc).encode())
    r = run("crosscheck", f"specs/{spec}.yaml", "--dumps", str(path.parent))
    assert r.code == 3 and "at note: a hardware dump's note is not the synthetic one, found \"SYNTHETIC: " in r.out
    doc["note"] = "the outputs came back from the device named here"
    _write_gz(str(path), json.dumps(doc).encode())
    r = run("crosscheck", f"specs/{spec}.yaml", "--dumps", str(path.parent))
    assert r.code == 0 and "(1 hardware, 0 synthetic" in r.out, r.out + r.err
    doc["source"] = "synthetic"  # and the other way: a GPU's dump is not synthetic
    _write_gz(str(path), json.dumps(doc).encode())
    r = run("crosscheck", f"specs/{spec}.yaml", "--dumps", str(path.parent))
    assert r.code == 3 and "at device.name: a synthetic dump names the reference model, found 'NVIDIA H100 80GB HBM3'" in r.out


def _count_as_float(doc):
    doc["patterns"][0]["count"] = float(doc["patterns"][0]["count"])
    return doc


def _shorten(doc):
    doc["registers"]["D"]["data"] = doc["registers"]["D"]["data"][:-8]
    return doc


def test_checking_nothing_is_an_error(run, tmp_path):
    r = run("crosscheck", SPECS, "--dumps", str(tmp_path))
    assert r.code == 2 and "nothing was checked" in r.err
    shutil.copy(os.path.join(SYNTHETIC, "m8n8k4.row.col.f64.f64.f64.f64.dump.json.gz"), tmp_path)
    r = run("crosscheck", os.path.join(SPECS, "m16n8k16.yaml"), "--dumps", str(tmp_path))
    assert r.code == 2 and "no dump is of a variant of these specs" in r.err


def test_synthetic_probe_writes_what_crosscheck_reads(run, tmp_path):
    r = run("probe", os.path.join(SPECS, "m8n8k4.yaml"), "--synthetic", "--out", str(tmp_path))
    assert r.code == 0, r.err
    assert "13 synthetic (reference model, not hardware) dumps" in r.out
    c = run("crosscheck", os.path.join(SPECS, "m8n8k4.yaml"), "--dumps", str(tmp_path), "--format", "json")
    doc = json.loads(c.out)
    assert c.code == 0 and doc["summary"]["synthetic"] == 13 and doc["summary"]["hardware"] == 0
    assert {x["source"] for x in doc["results"]} == {"synthetic"}


def test_codes_name_every_k_once():
    for k, j, binary in [(4, 8, False), (16, 8, False), (32, 8, False), (256, 8, True), (256, 16, True)]:
        c = patterns.codes(k, j, binary)
        keys = {tuple(c[:, x].ravel()) for x in range(k)}
        assert len(keys) == k
        if binary:  # every k has a 1 somewhere, so a one-hot slot always shows in D
            assert all(c[:, x].any() for x in range(k))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-64, 64), min_size=12, max_size=12), st.integers(-4, 4))
def test_the_fast_exact_product_equals_the_rational_one(vals, shift):
    a = np.ldexp(np.array(vals[:6], dtype=np.float64).reshape(1, 2, 3), shift)
    b = np.array(vals[6:], dtype=np.float64).reshape(1, 3, 2) / 8
    c = np.array([[[0.125, -3.0], [1.5, 0.0]]])
    fast = _dyadic(a, b, c)
    exact = _rational(a, b, c)
    assert fast is not None
    assert [float(x) for x in exact.ravel()] == fast.ravel().tolist()


def test_opcode_counts_ignore_predicates():
    listing = """
        /*0070*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0080*/              @!P0 BRA `(.L_x_1) ;
        /*0090*/                   HMMA.16816.F32 R4, R8, R12, R4 ;
        /*00a0*/               @P1 HMMA.16816.F32 R4, R8, R12, R4 ;
    """
    counts = sass.opcode_counts(listing)
    assert counts == {"BRA": 1, "HMMA.16816.F32": 2, "LDC.64": 1}
    assert sass.summarize(counts)["tensor_core"] == 2 and not sass.summarize(counts)["emulated"]
    assert sass.tensor_ops(counts) == "HMMA.16816.F32 x2"


def test_each_summary_line_gives_its_own_parts_time(run):
    """A crosscheck of mma and wgmma dumps printed the whole run's time on both summary lines,
    which read as twice the time spent: the lines' times add up to no more than the run's."""
    import re
    import time

    dumps = ["m16n8k16.row.col.f16.e4m3.e4m3.f16.dump.json.gz", "m64n24k16.f16.f16.f16.a_shared.wgmma.json.gz"]
    t0 = time.perf_counter()
    r = run("crosscheck", os.path.join(ROOT, "specs", "m16n8k16.yaml"), os.path.join(ROOT, "specs", "m64nNk16.yaml"),
            *[x for d in dumps for x in ("--dumps", os.path.join(ROOT, "reports", "synthetic", d))])
    wall = time.perf_counter() - t0
    assert r.code == 0, r.out + r.err
    times = [float(t) for t in re.findall(r"dumps \(.*; ([0-9.]+) s$", r.out, re.M)]
    assert len(times) == 2, r.out
    assert sum(times) <= wall + 0.01, (times, wall)


def test_every_committed_synthetic_dump_names_its_spec_as_it_is_now():
    """A synthetic dump is the reference model run on a spec: its D is the spec's prediction, and
    the sha256 it names is that spec's. A dump kept after its spec was edited names a spec that is
    no longer there (the 70 mma and 29 movement dumps named older spec bytes while the crosscheck,
    which reads the spec as it is, still agreed). Regenerate them: `checker probe SPEC... --synthetic`
    (mma, ldmatrix, stmatrix, movmatrix) and `python -m checker.probe.wgmma_run reports/synthetic`.
    A hardware dump is not held to this: it records the spec its run was checked against."""
    import glob
    import gzip
    import hashlib
    import json

    stale, seen = [], 0
    for path in sorted(glob.glob(os.path.join(SYNTHETIC, "*.json.gz"))):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            d = json.load(fh)
        assert d["source"] == "synthetic", path
        spec, sha = (d["spec"]["file"], d["spec"]["sha256"]) if isinstance(d["spec"], dict) else (d["spec"], d["spec_sha256"])
        with open(os.path.join(ROOT, spec), "rb") as fh:
            if hashlib.sha256(fh.read()).hexdigest() != sha:
                stale.append(f"{os.path.basename(path)} ({spec})")
        seen += 1
    assert seen == 70 + 29 + 9 and stale == []
