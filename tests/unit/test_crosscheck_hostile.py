"""Hostile dumps made from the committed synthetic ones, each schema-valid or nearly so: what the
crosscheck says of them is a located result with its documented exit code (1 refuted, 3 malformed),
never a traceback, a silent pass, an unbounded wait or minutes of work; and `probe --synthetic`
writes no dump through a link or into a FIFO planted in its output folder."""
import base64
import gzip
import json
import os
import shutil
import struct
import threading
import time

import numpy as np
import pytest

from conftest import ROOT, SPECS

from checker.errors import UsageError
from checker.probe import dump

SYNTHETIC = os.path.join(ROOT, "reports", "synthetic")
MMA = "m16n8k16.row.col.f32.f16.f16.f32.dump.json.gz"
WGMMA = "m64n64k16.f32.f16.f16.a_registers.wgmma.json.gz"
CHAIN = "ldmatrix-x4-x2.trans-into-mma.m16n8k16.movement.json.gz"
LDMATRIX = "ldmatrix.m8n8.x4.b16.movement.json.gz"


def _load(name):
    return json.loads(gzip.decompress(open(os.path.join(SYNTHETIC, name), "rb").read()))


def _save(folder, name, doc=None, raw=None):
    os.makedirs(folder, exist_ok=True)
    raw = raw if raw is not None else json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    path = os.path.join(folder, name)
    with open(path, "wb") as fh:
        fh.write(gzip.compress(raw))
    return path


def _array(enc):
    dt = {32: "<u4", 64: "<u8", "u8": "<u1", "u32": "<u4"}[enc.get("bits", enc.get("dtype"))]
    return np.frombuffer(base64.b64decode(enc["data"]), dtype=dt).reshape(enc["shape"]).copy(), dt


def _put(enc, a, dt):
    enc["data"] = base64.b64encode(a.astype(dt).tobytes()).decode()
    enc["shape"] = list(a.shape)


def _hardware(doc, sm):
    doc.update(source="hardware", note="the outputs came back from the device named here")
    doc["device"] = dict(doc["device"], name="NVIDIA GPU", sm=sm, driver_version=12080, cuda_version="x")
    return doc


def _clean(r):
    assert "Traceback" not in r.out + r.err, r.out + r.err


def test_a_baseline_block_of_two_warps_is_located_not_a_traceback(run, tmp_path):
    """D1: the counts still add up to the warps, but baseline-A is 2 warps: numpy could not
    broadcast one-hot minus baseline (a traceback, exit 1)."""
    x = _load(MMA)
    x["patterns"][0]["count"] = 31
    x["patterns"][2]["count"] = 2
    _save(str(tmp_path), MMA, x)
    r = run("crosscheck", SPECS, "--dumps", str(tmp_path))
    _clean(r)
    assert r.code == 1
    assert "error: identifies-A m16n8k16.row.col.f32.f16.f16.f32" in r.out
    assert "the dump's baseline-A block #0 has 2 warps; the patterns make it 1" in r.out


def test_a_wgmma_block_kind_given_twice_names_the_cta(run, tmp_path):
    """D2: two random blocks and a bit flipped in the second: `predicts` names the CTA's block
    (it raised StopIteration looking for it among the first block of each kind)."""
    x = _load(WGMMA)
    x["blocks"] = x["blocks"][:4] + [{"count": 1, "kind": "random"}, {"count": 1, "kind": "random"}]
    a, dt = _array(x["arrays"]["d_out"])
    a[5, 100, 7] ^= 1
    _put(x["arrays"]["d_out"], a, dt)
    _save(str(tmp_path), WGMMA, x)
    r = run("crosscheck", os.path.join(SPECS, "m64nNk16.yaml"), "--dumps", str(tmp_path))
    _clean(r)
    assert r.code == 1
    assert "1 of 6 CTAs differ; first: CTA 5 (random), thread 100 (warp 3, %laneid 4), D register 7" in r.out


def test_a_nan_in_the_chain_is_that_dump_malformed_and_the_others_are_checked(run, tmp_path):
    """D3: the model's ModelError went past the movement crosscheck to the CLI's catch-all: one
    unlocated line, exit 1, and no other dump reported."""
    x = _load(CHAIN)
    a, dt = _array(x["arrays"]["c_in"])
    a[0, 0, 0] = 0x7FC00000
    _put(x["arrays"]["c_in"], a, dt)
    path = _save(str(tmp_path), CHAIN, x)
    for name in (MMA, LDMATRIX):
        shutil.copy(os.path.join(SYNTHETIC, name), tmp_path)
    r = run("crosscheck", SPECS, "--dumps", str(tmp_path))
    _clean(r)
    assert r.code == 3, r.out + r.err
    assert f"{path}:1:1: error (malformed): dump: the model cannot run the dump's inputs under " in r.out
    assert ": an input is NaN or infinite; the model predicts only exact, finite results" in r.out
    assert "agrees    ldmatrix.m8n8.x4.b16" in r.out and "agrees    m16n8k16.row.col.f32.f16.f16.f32" in r.out


@pytest.mark.parametrize("name,spec,edit,expect", [
    # .f64 m16n8k16 needs sm_90: a kernel for sm_75 does not assemble, an sm_75 device could not run one
    ("m16n8k16.row.col.f64.f64.f64.f64.dump.json.gz", "m16n8k16",
     lambda x: (_hardware(x, 75), x["kernel"].update(target="sm_75")),
     "at kernel.target: a kernel for sm_75 cannot hold mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64, "
     "which needs sm_90 (the support table)"),
    (MMA, "m16n8k16", lambda x: _hardware(x, 80),
     "at device.sm: a device of sm 80 cannot run the dump's kernel, a cubin built for sm_90 (kernel.target)"),
    (WGMMA, "m64nNk16", lambda x: _hardware(x, 80),
     "at device.sm: a device of sm 80 cannot run the dump's kernel, a cubin built for sm_90a (kernel.target)"),
    (WGMMA, "m64nNk16", lambda x: _hardware(x, 100), "at device.sm: a device of sm 100 cannot run the dump's kernel, "
     "a cubin built for sm_90a (kernel.target)"),
    ("ldmatrix.m8n8.x2.b16.movement.json.gz", "ldmatrix.m8n8",
     lambda x: (_hardware(x, 75), x["kernel"].update(target="sm_70", assembler=None)),
     "at kernel.target: a kernel for sm_70 cannot hold ldmatrix.sync.aligned.m8n8.x2.shared.b16: it needs sm_75"),
    ("ldmatrix.m8n8.x2.b16.movement.json.gz", "ldmatrix.m8n8", lambda x: _hardware(x, 89),
     "at device.sm: a device of sm 89 cannot run the dump's kernel, a cubin built for sm_90"),
])
def test_a_hardware_dump_from_a_device_that_cannot_run_it_is_refused(run, tmp_path, name, spec, edit, expect):
    """D4: the device's sm against the kernel's target, and the target against the instruction's
    minimum: each of these passed as hardware agreeing with the spec."""
    x = _load(name)
    edit(x)
    path = _save(str(tmp_path), name, x)
    r = run("crosscheck", os.path.join(SPECS, f"{spec}.yaml"), "--dumps", str(tmp_path))
    _clean(r)
    assert r.code == 3, r.out + r.err
    assert f"{path}:1:1: error (malformed): dump: {expect}" in r.out, r.out
    # and the device that can: the same dump counts as hardware agreeing
    x = _load(name)
    _hardware(x, 90)
    _save(str(tmp_path), name, x)
    r = run("crosscheck", os.path.join(SPECS, f"{spec}.yaml"), "--dumps", str(tmp_path))
    assert r.code == 0 and "(1 hardware, 0 synthetic" in r.out, r.out


def test_which_devices_run_which_kernels():
    assert dump.runs_on(90, "sm_80", cubin=False) and not dump.runs_on(90, "sm_80", cubin=True)
    assert dump.runs_on(86, "sm_80", cubin=True) and not dump.runs_on(75, "sm_80", cubin=False)
    assert dump.runs_on(90, "sm_90a", cubin=True) and not dump.runs_on(100, "sm_90a", cubin=False)
    assert dump.runs_on(103, "sm_100f", cubin=True) and not dump.runs_on(120, "sm_100f", cubin=False)


def test_probe_writes_no_dump_through_a_link(run, tmp_path):
    """D5: a dump's name in the output folder planted as a link to a file outside: the file was
    overwritten with gzip data."""
    precious = tmp_path / "precious.txt"
    precious.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    link = out / "m16n8k8.row.col.f32.f16.f16.f32.dump.json.gz"
    link.symlink_to(precious)
    r = run("probe", os.path.join(SPECS, "m16n8k8.yaml"), "--synthetic", "--out", str(out))
    _clean(r)
    assert r.code == 2, r.out + r.err
    assert f"--out {link}: is a symbolic link, not a regular file" in r.err
    assert precious.read_text() == "precious\n" and link.is_symlink()


def test_probe_waits_on_no_fifo(tmp_path):
    """D5: a FIFO at a dump's name held `probe --synthetic` until something read it (forever)."""
    path = tmp_path / "m16n8k8.row.col.f16.f16.f16.f16.dump.json.gz"
    os.mkfifo(path)
    found = []

    def write():
        try:
            dump.write_json_gz(str(path), {"a": 1})
        except UsageError as exc:
            found.append(str(exc))

    t = threading.Thread(target=write, daemon=True)
    t.start()
    t.join(10)
    if t.is_alive():  # unblock the writer so the test run can end
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        pytest.fail("writing a dump waited on a FIFO")
    assert found == [f"--out {path}: is a FIFO (named pipe), not a regular file"]


def test_a_dump_whose_inputs_need_minutes_of_exact_arithmetic_is_refused_at_once(run, tmp_path):
    """D6: one subnormal C pushes the exact model off its int64 path, onto Fractions for every
    product of every warp: 26,331 such warps (98 KB) took 4.5 minutes."""
    name = "m16n8k32.row.col.f32.e4m3.e4m3.f32.dump.json.gz"
    x = _load(name)
    warps = 1024
    x["patterns"] = [{"kind": "random", "count": warps, "seeds": [0, warps - 1]}]
    sub = struct.unpack("<I", struct.pack("<f", 1e-45))[0]
    for op, count, value in (("A", 4, 0), ("B", 2, 0), ("C", 4, sub), ("D", 4, sub)):
        _put(x["registers"][op], np.full((warps, 32, count), value, dtype=np.uint64), "<u4")
    _save(str(tmp_path), name, x)
    t0 = time.perf_counter()
    r = run("crosscheck", os.path.join(SPECS, "m16n8k32.yaml"), "--dumps", str(tmp_path), "--jobs", "1")
    seconds = time.perf_counter() - t0
    _clean(r)
    assert r.code == 1
    assert ("error: predicts m16n8k32.row.col.f32.e4m3.e4m3.f32: [synthetic dump: reference model, not hardware] "
            "the reference model cannot run the dump's inputs under this spec: the inputs need exact rational "
            "arithmetic for more than 65536 products") in r.out
    assert seconds < 5


def test_one_warp_far_apart_in_scale_is_still_predicted_exactly():
    """The bound leaves room for what one warp needs (the most: m16n8k256, 32,768 products)."""
    from fractions import Fraction

    from checker.semantics.execute import MAX_RATIONAL, multiply
    from checker.semantics.registers import ModelError
    from checker.semantics.variants import variants
    from checker.spec.load import load_spec

    v = next(v for v in variants(load_spec(os.path.join(SPECS, "m16n8k16.yaml"))) if v.atype == "f64")
    c = 2.0 ** -1074
    D = multiply(v, np.zeros((1, 1, 16, 16)), np.zeros((1, 1, 16, 8)), np.full((1, 1, 16, 8), c))
    assert all(Fraction(x) == Fraction(c) for x in D.ravel())
    batch = MAX_RATIONAL // (16 * 16 * 8) + 1
    with pytest.raises(ModelError, match="exact rational arithmetic"):
        multiply(v, np.zeros((batch, 1, 16, 16)), np.zeros((batch, 1, 16, 8)), np.full((batch, 1, 16, 8), c))


def test_a_movement_dump_of_a_form_its_spec_does_not_describe_is_said(run, tmp_path):
    """D7: a dump naming ldmatrix .x8 (no such form) beside specs/ldmatrix.m8n8.yaml was counted
    "of other specs" and never reported; mma and wgmma dumps of such variants are."""
    x = _load(LDMATRIX)
    x["instruction"] = "ldmatrix.sync.aligned.m8n8.x8.shared.b16"
    path = _save(str(tmp_path), "ldmatrix.m8n8.x8.b16.movement.json.gz", x)
    shutil.copy(os.path.join(SYNTHETIC, "stmatrix.m8n8.x1.b16.movement.json.gz"), tmp_path)
    r = run("crosscheck", os.path.join(SPECS, "ldmatrix.m8n8.yaml"), "--dumps", str(tmp_path))
    _clean(r)
    assert r.code == 1, r.out + r.err
    assert (f"{path}:1:1: error: predicts ldmatrix.m8n8.x8.b16: the dump is of ldmatrix.sync.aligned.m8n8.x8.shared.b16, "
            f"which {os.path.join(SPECS, 'ldmatrix.m8n8.yaml')} does not describe (re-record or delete the dump)") in r.out
    assert "(0 hardware, 1 synthetic, 1 of other specs, 0 not predicted)" in r.out  # the stmatrix one


@pytest.mark.parametrize("name,spec,edit,expect", [
    (MMA, "m16n8k16", lambda x: x["patterns"][1].update(code=0), "identifies-D"),
    (LDMATRIX, "ldmatrix.m8n8", lambda x: x.update(blocks=[{"kind": "random", "count": 8}]), "identifies"),
    (WGMMA, "m64nNk16", lambda x: x.update(blocks=[{"kind": "random", "count": 6}]), "identifies-A"),
])
def test_a_missing_pattern_is_located_at_the_dump(run, tmp_path, name, spec, edit, expect):
    """D8: these were located at a bare path, not `file:line:col`."""
    x = _load(name)
    edit(x)
    path = _save(str(tmp_path), name, x)
    r = run("crosscheck", os.path.join(SPECS, f"{spec}.yaml"), "--dumps", str(tmp_path))
    _clean(r)
    assert r.code == 1
    assert f"{path}:1:1: error: {expect} " in r.out, r.out
    assert f"{path}: error" not in r.out


@pytest.mark.parametrize("name,spec", [(MMA, "m16n8k16"), (WGMMA, "m64nNk16"), (LDMATRIX, "ldmatrix.m8n8")])
def test_a_name_given_twice_in_a_dump_is_malformed(run, tmp_path, name, spec):
    """D9: json kept the last of two "source" names; a reader keeping the first saw another dump."""
    raw = json.dumps(_load(name), sort_keys=True, separators=(",", ":")).encode()
    assert b'"source":"synthetic"' in raw
    path = _save(str(tmp_path), name, raw=raw.replace(b'"source":"synthetic"', b'"source":"hardware","source":"synthetic"'))
    r = run("crosscheck", os.path.join(SPECS, f"{spec}.yaml"), "--dumps", str(tmp_path))
    _clean(r)
    assert r.code == 3
    assert f"{path}:1:1: error (malformed): dump: not JSON: the name 'source' is given twice in one object" in r.out


@pytest.mark.parametrize("edit,expect", [
    (lambda x: x["kernel"].update(target="sm_90" + "X" * 150000), "… does not match '^sm_[0-9]+a?$'"),
    (lambda x: x.update({"K" * 5000: 1}), "at the top: Additional properties are not allowed ('KKKK"),
    (lambda x: x["tool"].update(x={"a": {"a": {"a": "b" * 5000}}}), "… is not of type 'string'"),
])
def test_a_schema_error_echoes_a_bounded_value_and_says_what_is_wrong(run, tmp_path, edit, expect):
    """D10: the message was cut at 300 characters, inside the echoed value: the reason was lost."""
    x = _load(MMA)
    edit(x)
    path = _save(str(tmp_path), MMA, x)
    r = run("crosscheck", os.path.join(SPECS, "m16n8k16.yaml"), "--dumps", str(tmp_path))
    _clean(r)
    assert r.code == 3
    line = next(t for t in r.out.splitlines() if t.startswith(f"{path}:1:1: error (malformed): dump: at "))
    assert expect in line and "…" in line and len(line) < len(str(path)) + 300, line


@pytest.mark.parametrize("name,spec,said", [
    (MMA, "m16n8k16.yaml", "not a target ptxas names, found 'sm_999"),
    (LDMATRIX, "ldmatrix.m8n8.yaml", "not a target ptxas names, found 'sm_999"),
    (WGMMA, "m64nNk16.yaml", "'sm_90a' was expected"),  # its schema names the one target
])
def test_a_target_of_five_thousand_digits_is_malformed_not_a_traceback(run, tmp_path, name, spec, said):
    """The schema's pattern `^sm_[0-9]+a?$` has no bound on the digits; the check of which device
    runs which kernel converted them with int(), which refuses 5,000 digits: a traceback, exit 1."""
    doc = _load(name)
    doc["kernel"]["target"] = "sm_" + "9" * 5000
    _save(str(tmp_path), name, doc)
    r = run("crosscheck", os.path.join(SPECS, spec), "--dumps", str(tmp_path))
    _clean(r)
    assert r.code == 3 and f"{tmp_path / name}:1:1: error (malformed): dump: at kernel.target: {said}" in r.out, r.out


@pytest.mark.parametrize("name, words", [
    ("m16n8k8.row.col.f32.tf32.tf32.f32.dump.json.gz", lambda n, rng: np.full(n, 0x7F800000, dtype=np.uint64)),
    ("m16n8k16.row.col.f64.f64.f64.f64.dump.json.gz",  # the largest doubles, either sign: their differences overflow
     lambda n, rng: np.array([struct.unpack("<Q", struct.pack("<d", rng.choice([1.7e308, -1.7e308])))[0]
                              for _ in range(n)], dtype=np.uint64)),
])
def test_a_d_of_infinities_is_refuted_without_numpys_warnings(run, tmp_path, name, words):
    """A D of infinities (inf - inf) or of the largest doubles (their differences overflow) is a
    disagreement, said located; numpy had also written a RuntimeWarning on stderr naming
    checker/probe/identify.py's line, as if it were an error of the input."""
    import random
    import warnings

    doc = _load(name)
    a, dt = _array(doc["registers"]["D"])
    _put(doc["registers"]["D"], words(a.size, random.Random(1)).reshape(a.shape), dt)
    _save(str(tmp_path), name, doc)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        r = run("crosscheck", SPECS, "--dumps", str(tmp_path), "--jobs", "1")
    _clean(r)
    assert r.code == 1 and "error: predicts" in r.out, r.out
    assert not [w for w in said if issubclass(w.category, RuntimeWarning)], [str(w.message) for w in said]


def test_a_bfloat16_nan_pattern_reads_as_nan_without_a_warning():
    import warnings

    from checker.semantics.types import from_bits

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # numpy warns only on its vectorised path (arrays of some length): a register file's worth
        assert np.isnan(from_bits("bf16", np.array([0x7FC1, 0xFFFF, 0x7F81] * 256, dtype=np.uint64))).all()


def test_a_wgmma_d_of_nan_patterns_is_refuted_without_numpys_warnings(run, tmp_path):
    """An .f16 wgmma d_out of signalling NaNs: numpy had warned on stderr rounding them ('invalid
    value encountered in rint', naming numpy's own file)."""
    import warnings

    name = "m64n8k32.f16.e5m2.e4m3.a_shared.swizzle_32B.wgmma.json.gz"
    doc = _load(name)
    a, dt = _array(doc["arrays"]["d_out"])
    # signalling NaNs (.f16 0x7C01): rounding a quiet one is silent, a signalling one raises "invalid"
    _put(doc["arrays"]["d_out"], np.full(a.shape, 0x7C017C01, dtype=np.uint64), dt)
    _save(str(tmp_path), name, doc)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        r = run("crosscheck", os.path.join(SPECS, "m64nNk32.yaml"), "--dumps", str(tmp_path), "--jobs", "1")
    _clean(r)
    assert r.code == 1 and "error: predicts" in r.out, r.out
    assert not [w for w in said if issubclass(w.category, RuntimeWarning)], [str(w.message) for w in said]


@pytest.mark.parametrize("type_, value", [("f16", 1e6), ("e5m2", 1e9), ("bf16", 1e300), ("f32", 1e300)])
def test_a_result_too_large_for_its_type_is_refused_without_a_warning(type_, value):
    """A dump's random A and B can make a D no .f16 holds: the reference model refuses it (a
    located result); the cast had also printed numpy's 'overflow encountered in cast' on stderr."""
    import warnings

    from checker.semantics.types import to_bits

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="not exactly representable"):
            to_bits(type_, np.full(256, value))


def test_a_zero_a_beside_a_subnormal_b_is_the_models_documented_refusal(run, tmp_path):
    """A = 0 beside a B of the smallest subnormal doubles: the model's integer path scaled B by
    2**1074, which raised OverflowError, said as "(34, 'Numerical result out of range')" (nothing
    of what the model expected), and a B just inside float64 was cast to int64 as garbage; now
    that path declines, and the exact one says its documented bound."""
    import warnings

    name = "m16n8k8.row.col.f64.f64.f64.f64.dump.json.gz"
    doc = _load(name)
    for op, word in (("A", 0), ("B", 1)):  # 1: 4.9e-324
        a, dt = _array(doc["registers"][op])
        _put(doc["registers"][op], np.full(a.shape, word, dtype=np.uint64), dt)
    _save(str(tmp_path), name, doc)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        r = run("crosscheck", os.path.join(SPECS, "m16n8k8.yaml"), "--dumps", str(tmp_path), "--jobs", "1")
    _clean(r)
    line = next(ln for ln in r.out.splitlines() if ": error: predicts " in ln)
    assert r.code == 1 and "exact rational arithmetic for more than" in line and "out of range" not in line, line
    assert not [w for w in said if issubclass(w.category, RuntimeWarning)], [str(w.message) for w in said]


@pytest.mark.parametrize("name,group,output", [(MMA, "registers", "D"), (LDMATRIX, "arrays", "registers_out"),
                                               (WGMMA, "arrays", "d_out")])
def test_two_dumps_of_one_variant_are_two_verdicts_and_a_disagreement_names_its_dump(run, tmp_path, name, group, output):
    """Two dumps of one variant (two GPUs, two drivers) were merged into one line, and the error,
    located at the spec's formula, did not say which dump showed it: now each dump has its own
    verdict, named by its file, and the error names the dump."""
    doc = _load(name)
    good = _save(str(tmp_path), "gpu0." + name, doc)
    a, dt = _array(doc[group][output])
    flat = a.reshape(-1)
    flat[0] ^= 1
    _put(doc[group][output], flat.reshape(a.shape), dt)
    bad = _save(str(tmp_path), "gpu1." + name, doc)
    r = run("crosscheck", SPECS, "--dumps", str(tmp_path), "--jobs", "1")
    _clean(r)
    assert r.code == 1, r.out + r.err
    errors = [ln for ln in r.out.splitlines() if ": error: " in ln]
    assert errors and all(ln.endswith(f"(dump {bad})") or ln.startswith(f"{bad}:") for ln in errors), errors
    verdicts = [ln for ln in r.out.splitlines() if ln.startswith(("agrees ", "DISAGREES "))]
    assert len(verdicts) == 2, verdicts
    assert verdicts[0].startswith("agrees ") and verdicts[0].endswith(f"({good})"), verdicts
    assert verdicts[1].startswith("DISAGREES ") and verdicts[1].endswith(f"({bad})"), verdicts
    assert "1 agree, 1 disagree" in r.out, r.out
