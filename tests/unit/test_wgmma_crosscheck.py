"""The wgmma probe's dumps and offline crosscheck, no GPU: synthetic dumps (the reference model as
the device) of every swizzle mode and A source agree with the specs; a dump whose D or register A
layout differs is caught and located (thread, register, what the dump shows, the spec's formula
line); a malformed or oversized dump is a located error (exit 3), never a traceback; the GPU path
writes a hardware dump through the driver launch it is given."""
import gzip
import io
import json
import os

import numpy as np
import pytest

from checker.cli import main
from checker.probe import wgmma_dump, wgmma_model, wgmma_patterns, wgmma_run
from checker.probe import wgmma_ptx as wx
from checker.spec.load import load_spec

SPECS = ["specs/m64nNk8.yaml", "specs/m64nNk16.yaml", "specs/m64nNk32.yaml", "specs/m64nNk256.yaml",
         "specs/m64nNk16.sp.yaml", "specs/m64nNk32.sp.yaml"]
PICK = wgmma_run.SAMPLE + wgmma_run.SAMPLE_SP


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), out, err)
    return code, out.getvalue(), err.getvalue()


def _found():
    out = wgmma_run.sample()
    assert len(out) == len(PICK)
    return out


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    where = str(tmp_path_factory.mktemp("wgmma"))
    paths = wgmma_run.record_all(_found(), where)
    return where, paths


def test_the_patterns_take_one_launch_with_few_ctas():
    digits = {}
    for path in SPECS:
        spec = load_spec(path)
        for v in wx.variants(spec, path):
            digits[v.atype] = wgmma_patterns.digits(v)
            assert sum(b.count for b in wgmma_patterns.blocks(v)) == 5 + wgmma_patterns.digits(v)
    # slots: 64 x K of them, coded in base CAP (the largest exact integer of the A type)
    assert digits == {"tf32": 1, "f16": 1, "bf16": 2, "e4m3": 3, "e5m2": 4, "s8": 2, "u8": 2, "b1": 14}


def test_the_columns_and_slots_patterns_show_every_d_element_its_cell():
    spec = load_spec("specs/m64nNk16.yaml")
    v = next(v for v in wx.variants(spec, "specs/m64nNk16.yaml") if v.n == 40 and v.dtype == "f32" and not v.a_shared)
    blocks, arrays = wgmma_patterns.build(v, spec)
    d = wgmma_model.predict(v, spec, arrays)
    dg = wgmma_model.fragments(v, spec)["D"]
    vals = wgmma_model.values("f32", wgmma_model.unpack(dg, d))
    assert (vals[0] == dg.cells[..., 1] + 1).all()  # columns: n + 1
    ga = wgmma_model.fragments(v, spec)["A"]
    shown = vals[1].astype(int) - 1  # one slots CTA for .f16: the slot index itself
    assert (ga.cells.reshape(-1, 2)[shown] == np.stack([dg.cells[..., 0], dg.cells[..., 1] % 16], axis=-1)).all()
    assert (vals[3] == 0).all()  # drop: scale-d 0 does not add D in
    assert (d[2] == arrays["d_in"][2]).all()  # keep: A = 0, scale-d 1


def test_the_committed_synthetic_dumps_are_the_sample_and_agree(synthetic):
    """reports/synthetic keeps the SAMPLE's dumps (python -m checker.probe.wgmma_run): the same bytes
    the model writes now, and the crosscheck agrees with them."""
    kept = wgmma_dump.find([os.path.join("reports", "synthetic")])
    assert sorted(os.path.basename(p) for p in kept) == sorted(os.path.basename(p) for p in synthetic[1])
    for p in kept:
        with open(p, "rb") as a, open(os.path.join(synthetic[0], os.path.basename(p)), "rb") as b:
            assert a.read() == b.read(), p
    code, out, err = run("crosscheck", *SPECS, *[x for p in kept for x in ("--dumps", p)])
    assert code == 0 and f"{len(PICK)} agree" in out


def test_synthetic_dumps_of_every_mode_agree(synthetic):
    where, paths = synthetic
    code, out, err = run("crosscheck", *SPECS, "--dumps", where)
    assert code == 0, out + err
    assert f"{len(PICK)} wgmma dumps (0 hardware, {len(PICK)} synthetic, 0 of other specs): {len(PICK)} agree" in out
    assert "agrees    m64n256k16.f32.bf16.bf16.a_registers.swizzle_128B" in out
    d = wgmma_dump.read(next(p for p in paths if "m64n8k256" in p))
    assert d.header["source"] == "synthetic" and d.header["kernel"]["target"] == "sm_90a"
    assert d.header["blocks"][1] == {"kind": "slots", "count": 14}
    code, out, err = run("crosscheck", *SPECS, "--dumps", where, "--format", "json")
    summary = json.loads(out)["summary"]
    assert summary["wgmma"]["synthetic"] == len(PICK) and summary["refuted"] == 0


def _rewrite(src, dst_dir, change):
    d = wgmma_dump.read(src)
    arrays = dict(d.arrays)
    change(arrays)
    path = os.path.join(str(dst_dir), os.path.basename(src))
    wgmma_dump.write(path, d.header, arrays)
    return path


def _one(synthetic, part):
    return next(p for p in synthetic[1] if part in p)


def test_a_d_element_in_another_row_is_caught_at_the_row_formula(synthetic, tmp_path):
    def swap(a):  # thread 37's d1 and thread 41's d1 (%laneid 5 and 9: groupID 1 and 2, same column)
        a["d_out"][:, [37, 41], 1] = a["d_out"][:, [41, 37], 1]

    path = _rewrite(_one(synthetic, "m64n64k16.f32.f16.f16.a_registers"), tmp_path, swap)
    code, out, err = run("crosscheck", "specs/m64nNk16.yaml", "--dumps", path)
    assert code == 1, out + err
    assert ("identifies-D m64n64k16.f32.f16.f16.a_registers: [synthetic dump: reference model, not hardware] "
            "thread 37 (warp 1, %laneid 5) d1: dump row 18, col 3; spec row 17, col 3 (2 of 4096 differ)") in out
    line = next(x for x in out.splitlines() if "identifies-D" in x).split(": error")[0]
    text = open("specs/m64nNk16.yaml").read().splitlines()
    _, row, col = line.split(":")
    assert "groupID" in text[int(row) - 1][int(col) - 1:] and text[int(row) - 1].lstrip().startswith("row")
    assert "predicts m64n64k16.f32.f16.f16.a_registers" in out


def test_a_d_element_in_another_column_is_caught_at_the_col_formula(synthetic, tmp_path):
    def swap(a):
        a["d_out"][:, 37, [0, 1]] = a["d_out"][:, 37, [1, 0]]

    path = _rewrite(_one(synthetic, "m64n64k16.f32.f16.f16.a_registers"), tmp_path, swap)
    code, out, err = run("crosscheck", "specs/m64nNk16.yaml", "--dumps", path)
    assert code == 1
    line = next(x for x in out.splitlines() if "identifies-D" in x)
    assert "thread 37 (warp 1, %laneid 5) d0: dump row 17, col 3; spec row 17, col 2" in line
    _, row, col = line.split(": error")[0].split(":")
    assert open("specs/m64nNk16.yaml").read().splitlines()[int(row) - 1].lstrip().startswith("col")


def test_a_device_whose_register_a_differs_is_caught_at_the_a_formula(tmp_path, monkeypatch):
    """A fake device that reads A's registers with two elements of thread 9 swapped (a0 <-> a2: rows
    groupID and groupID + 8): the dump it writes names thread 9 a0 and the spec's A row formula."""
    spec = load_spec("specs/m64nNk16.yaml")
    v = next(v for v in wx.variants(spec, "specs/m64nNk16.yaml") if v.n == 16 and v.dtype == "f32" and not v.a_shared)
    real = wgmma_model.fragments(v, spec)
    cells = real["A"].cells.copy()
    cells[9, [0, 2]] = cells[9, [2, 0]]
    wrong = {"A": wgmma_model.Fragment(real["A"].fragment, "f16", cells, 2, 4), "D": real["D"]}
    blocks, arrays = wgmma_patterns.build(v, spec)
    monkeypatch.setattr(wgmma_model, "fragments", lambda *a: wrong)
    d_out = wgmma_model.predict(v, spec, arrays)
    monkeypatch.undo()
    built = wgmma_run.build([v])[v.id]
    path = wgmma_run.record(v, spec, built, str(tmp_path))
    d = wgmma_dump.read(path)
    wgmma_dump.write(path, d.header, dict(d.arrays, d_out=d_out))
    code, out, err = run("crosscheck", "specs/m64nNk16.yaml", "--dumps", path)
    assert code == 1, out + err
    line = next(x for x in out.splitlines() if "identifies-A" in x)
    assert "thread 9 (warp 0, %laneid 9) a0: dump row 10, k 2; spec row 2, k 2" in line
    _, row, col = line.split(": error")[0].split(":")
    assert open("specs/m64nNk16.yaml").read().splitlines()[int(row) - 1].lstrip().startswith("row")


def test_an_image_laid_out_without_its_swizzle_is_caught(synthetic, tmp_path):
    """The host-side image is what the swizzle module says: a B image written without the swizzle
    the kernel's descriptor names reads as other values, so the model's prediction fails."""
    src = _one(synthetic, "m64n256k16.f32.bf16.bf16.a_registers.swizzle_128B")
    from checker.probe import wgmma_smem as sm

    def unswizzle(a):
        el = sm.gather(a["b"], 16, 256, "128B", *sm.strides("128B"))
        plain = sm.place(el, 16, "none", 0x40)
        a["b"][:, :plain.shape[1]] = plain

    code, out, err = run("crosscheck", "specs/m64nNk16.yaml", "--dumps", _rewrite(src, tmp_path, unswizzle))
    assert code == 1 and "predicts m64n256k16.f32.bf16.bf16.a_registers.swizzle_128B" in out and "CTAs differ" in out


@pytest.mark.parametrize("change,message", [
    (lambda doc: doc.update(format="other"), "not a wgmma probe dump"),
    (lambda doc: doc.update(version=2), "dump format version 2"),
    (lambda doc: doc["blocks"].append({"kind": "onehot", "count": 1}), "at blocks.5.kind"),
    (lambda doc: doc["arrays"]["d_out"].update(data="!!"), "arrays.d_out.data is not base64"),
    (lambda doc: doc["blocks"][4].update(count=3), "at arrays.a: 6 CTAs, but the blocks have 7"),
    (lambda doc: doc.update(n=8.0), "at n: expected an integer, found 8.0"),
    (lambda doc: doc["arrays"]["d_out"].update(shape=[5, 128, 4]), "holds 12288 bytes, not the [5, 128, 4]"),
    (lambda doc: doc["arrays"]["a"].update(shape=[6, 128, 3]), "holds 12288 bytes, not the [6, 128, 3]"),
    (lambda doc: doc.update(descriptor_high="0x0000001000008000"), "descriptor_high 0x0000001000008000"),
])
def test_a_malformed_dump_is_a_located_error(synthetic, tmp_path, change, message):
    src = _one(synthetic, "m64n8k8.f32.tf32.tf32.a_registers")
    with gzip.open(src, "rt") as fh:
        doc = json.load(fh)
    change(doc)
    path = tmp_path / os.path.basename(src)
    with gzip.open(path, "wt") as fh:
        json.dump(doc, fh)
    code, out, err = run("crosscheck", "specs/m64nNk8.yaml", "--dumps", str(path))
    assert code == 3, out + err
    assert f"{path}:1:1: error (malformed)" in out and message in out and "Traceback" not in out + err


@pytest.mark.parametrize("field,value", [
    ("instruction", "wgmma.mma_async.sync.aligned.m64n8k8.f16.tf32.tf32"),  # another instruction, same variant
    ("variant", "m64n16k8.f32.tf32.tf32.a_registers"),  # a variant the spec has, which runs another instruction
])
def test_a_dump_whose_variant_runs_another_instruction_says_both(synthetic, tmp_path, field, value):
    """Matched by its variant, a dump that ran another instruction is not checked against it: the
    spec's variant of that name runs its own, and the message names the three."""
    src = _one(synthetic, "m64n8k8.f32.tf32.tf32.a_registers")
    with gzip.open(src, "rt") as fh:
        doc = json.load(fh)
    doc[field] = value
    path = tmp_path / os.path.basename(src)
    with gzip.open(path, "wt") as fh:
        json.dump(doc, fh)
    code, out, err = run("crosscheck", "specs/m64nNk8.yaml", "--dumps", str(path))
    assert code == 1, out + err
    assert (f"{path}:1:1: error: predicts {doc['variant']}: the dump names {doc['variant']} but ran "
            f"{doc['instruction']}; that variant runs wgmma.mma_async.sync.aligned.{doc['variant'].rsplit('.', 1)[0]}") in out


def test_a_dump_that_is_not_gzip_or_too_large_is_refused(tmp_path, monkeypatch):
    bad = tmp_path / "x.wgmma.json.gz"
    bad.write_bytes(b"not gzip")
    code, out, err = run("crosscheck", "specs/m64nNk8.yaml", "--dumps", str(bad))
    assert code == 3 and f"{bad}:1:1" in out and "not a gzip file" in out
    bomb = tmp_path / "bomb.wgmma.json.gz"
    bomb.write_bytes(gzip.compress(b" " * (2 << 20)))
    monkeypatch.setattr(wgmma_dump, "MAX_EXPANDED", 1 << 20)
    code, out, err = run("crosscheck", "specs/m64nNk8.yaml", "--dumps", str(bomb))
    assert code == 3 and "expands to more than 1 MiB" in out


def test_the_gpu_path_writes_a_hardware_dump_from_the_launch(tmp_path, monkeypatch):
    """What the runner does with a device: one launch of every CTA, d_out poisoned first (checked by
    the launch), the device's names in the dump. The launch here is the model, so the dump agrees."""
    from checker.probe import movement_gpu

    spec = load_spec("specs/m64nNk8.yaml")
    v = next(v for v in wx.variants(spec, "specs/m64nNk8.yaml") if v.n == 8 and v.swizzle == "32B" and v.a_shared)
    calls = []

    def launch(device, image, kernel, params, inputs, outputs, warps, threads=32):
        calls.append((kernel, params, warps, threads, isinstance(image, bytes)))
        return {"d_out": wgmma_model.predict(v, spec, inputs)}

    class Device:
        sm = 90

        def describe(self):
            return {"name": "NVIDIA H100 80GB HBM3", "sm": 90, "driver_version": 12080, "cuda_version": "cuda-python 12.8.0"}

    monkeypatch.setattr(movement_gpu, "launch", launch)
    (path,) = wgmma_run.record_all([(v, spec)], str(tmp_path), device=Device())
    assert calls == [(wx.kernel_name(v), wx.PARAMS, 6, 128, True)]
    d = wgmma_dump.read(path)
    assert d.header["source"] == "hardware" and d.header["device"]["name"] == "NVIDIA H100 80GB HBM3"
    code, out, err = run("crosscheck", "specs/m64nNk8.yaml", "--dumps", path)
    assert code == 0 and "1 wgmma dumps (1 hardware, 0 synthetic" in out
