"""The ldmatrix / stmatrix / movmatrix probe without a GPU: the support rows are the document's,
the reference model does what the readings say (and ldmatrix into mma is the mma's A and B),
synthetic dumps agree, corrupted ones are caught and located, malformed ones are located errors,
and every kernel assembles (ptxas) at the document's minimum PTX version and not below."""
import json
import os
import shutil

import numpy as np
import pytest

from conftest import DOCUMENT, ROOT, SPECS

from checker.catalogue import movement_forms, movement_support
from checker.probe import movement_dump
from checker.probe import movement_model as model
from checker.probe.movement_run import subjects_of
from checker.spec.load import load_spec

MOVEMENT = ["ldmatrix.m8n8", "ldmatrix.m16n16", "ldmatrix.m8n16", "stmatrix.m8n8", "stmatrix.m16n8", "movmatrix.m8n8"]
PATHS = [os.path.join(SPECS, f"{s}.yaml") for s in MOVEMENT]
# .ci/run sets CHECKER_REQUIRE_CUDA: its machines have ptxas, so there a missing one fails, not skips
HAVE_PTXAS = bool(os.environ.get("CHECKER_REQUIRE_CUDA") or shutil.which("ptxas")
                  or os.path.exists("/usr/local/cuda/bin/ptxas"))
needs_ptxas = pytest.mark.skipif(not HAVE_PTXAS, reason="needs NVIDIA's ptxas (CUDA toolkit)")


def _cannot_target(target: str):
    """An older ptxas that knows no sm_100a skips; on .ci/run's machines (CUDA 13) it fails."""
    if os.environ.get("CHECKER_REQUIRE_CUDA"):
        pytest.fail(f"CHECKER_REQUIRE_CUDA is set, but this ptxas cannot target {target}")
    pytest.skip(f"this ptxas cannot target {target}")


@pytest.fixture(scope="module")
def subjects():
    return subjects_of([(p, load_spec(p)) for p in PATHS])


def test_the_support_rows_are_the_documents():
    """Every row's quotes are in its section, word for word, in 9.1 and in 9.2 (whose conversion
    marks code up otherwise: backticks are not compared there); the rows define 28 forms, and every
    form a spec names is one of them, and the other way round."""
    names = {"9.7.14.5.15": "ldmatrix", "9.7.14.5.16": "stmatrix", "9.7.14.5.17": "movmatrix"}
    folder = os.path.join(DOCUMENT, "ptx-isa")
    forms = [f for r in movement_support() for f in movement_forms(r)]
    assert len(forms) == len(set(forms)) == 28
    specified = {f for p in PATHS for fr in load_spec(p).fragments() for f in fr.forms}
    assert specified == set(forms)
    for r in movement_support():
        with open(os.path.join(folder, f"{r['section']}-{names[r['section']]}.md"), encoding="utf-8") as fh:
            text = " ".join(fh.read().split())
        with open(os.path.join(DOCUMENT, "ptx-isa-9.2", "14-warp-level-mma", "mma", f"{names[r['section']]}.md"),
                  encoding="utf-8") as fh:
            text92 = " ".join(fh.read().replace("`", "").split())
        for q in r["quotes"]:
            assert " ".join(q.split()) in text, q
            assert " ".join(q.replace("`", "").split()) in text92, q
        assert f"version {r['ptx']}." in " ".join(r["quotes"])


def test_which_targets_run_which_forms(subjects):
    f = {s.name: s for s in subjects.values()}
    assert f["ldmatrix.m8n8.x4.b16"].supports("sm_75") == (True, "6.5")
    assert f["stmatrix.m8n8.x1.b16"].supports("sm_89")[0] is False
    m16 = f["ldmatrix.m16n16.x1.trans.b8"]
    assert [m16.supports(t)[0] for t in ("sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103f", "sm_120a", "sm_121f")] \
        == [False, False, False, True, True, True, True]
    assert "Target ISA Notes" in m16.supports("sm_90")[1]
    # the kernel's .version: the form's minimum, the family targets' 8.8, sm_110a's 9.0
    assert (m16.version("sm_100a"), m16.version("sm_100f"), m16.version("sm_110a")) == ("8.7", "8.8", "9.0")


def test_the_model_reads_the_tile_at_the_lanes_addresses(subjects):
    """ldmatrix.x1: lane 5 holds row 1, columns 2 and 3 (Figure 104 as read), row r being the 16
    bytes at the address lane r gives; .trans swaps row and column."""
    plain, trans = subjects["ldmatrix.sync.aligned.m8n8.x1.shared.b16"], subjects["ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16"]
    image = np.zeros((1, 1024), dtype=np.uint8)
    image[0, 0::2] = np.arange(512) % 256  # element w of the buffer holds w % 256 in its low byte
    addresses = (np.arange(32, dtype=np.uint32)[::-1] * 16)[None]  # lane r gives row slot 31 - r
    got = model.unpack(plain, model.predict(plain, {"image": image, "addresses": addresses})["registers_out"])
    assert got[0, 5].tolist() == [(30 * 8 + 2) % 256, (30 * 8 + 3) % 256]  # row 1 is slot 30
    got = model.unpack(trans, model.predict(trans, {"image": image, "addresses": addresses})["registers_out"])
    assert got[0, 5].tolist() == [(29 * 8 + 1) % 256, (28 * 8 + 1) % 256]  # rows 2, 3 (slots 29, 28), column 1


@pytest.mark.parametrize("num", ["x1", "x2", "x4"])
def test_stmatrix_then_ldmatrix_is_the_identity(subjects, num):
    """The two readings are the same tile: storing registers and loading them back at the same
    addresses gives every register back."""
    st = subjects[f"stmatrix.sync.aligned.m8n8.{num}.trans.shared.b16"]
    ld = subjects[f"ldmatrix.sync.aligned.m8n8.{num}.trans.shared.b16"]
    probe = model.build(st, 5)
    stored = model.predict(st, probe.arrays)["image_out"]
    back = model.predict(ld, {"image": stored, "addresses": probe.arrays["addresses"]})["registers_out"]
    assert (back == probe.arrays["registers_in"]).all()


def test_movmatrix_transposes(subjects):
    mov = subjects["movmatrix.sync.aligned.m8n8.trans.b16"]
    a = np.arange(64, dtype=np.uint64).reshape(1, 32, 2)  # a holds M[r][c] = 8r + c (Figure 109, read)
    d = model.moved(mov, a)
    assert d[0, 0].tolist() == [0, 8] and d[0, 1].tolist() == [16, 24] and d[0, 4].tolist() == [1, 9]


def test_ldmatrix_into_mma_gives_the_mma_fragments(subjects):
    """The chained kernel's model: the loaded registers are m16n8k16's A and B fragments of the
    matrices in the image (the compositions), and D is what the mma model computes from them."""
    from checker.semantics.execute import execute
    from checker.semantics.registers import pack

    chain = next(s for s in subjects.values() if s.family == "chain")
    probe = chain.build(11)
    want = chain.predict(probe.arrays)
    A, B, _ = chain.matrices(probe.arrays)
    assert (want["fragments_out"][..., :4] == pack(chain.geo["A"], A[:, None])).all()
    assert (want["fragments_out"][..., 4:] == pack(chain.geo["B"], B[:, None])).all()
    d = execute(chain.variant, want["fragments_out"][..., :4], want["fragments_out"][..., 4:], probe.arrays["c_in"])
    assert (d == want["d_out"]).all() and len(np.unique(want["d_out"])) > 100


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    from checker.cli import main
    import io

    where = str(tmp_path_factory.mktemp("movement"))
    out, err = io.StringIO(), io.StringIO()
    assert main(["probe", *PATHS, "--synthetic", "--out", where], out, err) == 0, err.getvalue()
    return where, out.getvalue()


def test_synthetic_dumps_agree(synthetic, run):
    where, said = synthetic
    # the ten .b8x16 forms too, from their specs' container readings (tests/unit/test_containers.py)
    assert "29 synthetic" in said and "0 skipped" in said
    r = run("crosscheck", *PATHS, "--dumps", where)
    assert r.code == 0, r.out
    assert "29 movement dumps (0 hardware, 29 synthetic, 0 of other specs, 0 not predicted): 29 agree" in r.out
    assert "agrees    ldmatrix-x4-x2.trans-into-mma.m16n8k16" in r.out
    assert "agrees    ldmatrix.m8n16.x4.b8x16.b6x16_p32                synthetic 8 warps in the values' bits" in r.out
    # the committed ones too, beside the mma dumps
    r = run("crosscheck", SPECS, "--dumps", os.path.join(ROOT, "reports", "synthetic"))
    assert r.code == 0 and "29 movement dumps" in r.out and "29 agree" in r.out


def _corrupt(synthetic, tmp_path, name, change):
    d = movement_dump.read(os.path.join(synthetic[0], name + movement_dump.SUFFIX))
    change(d.arrays)
    path = str(tmp_path / (name + movement_dump.SUFFIX))
    movement_dump.write(path, {k: v for k, v in d.header.items() if k not in ("format", "version")}, d.arrays)
    return path


def _line(spec: str, text: str, after: str = "") -> int:
    """The number of the first line holding `text` after the first one holding `after`."""
    with open(os.path.join(SPECS, spec), encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    start = next(k for k, line in enumerate(lines) if after in line)
    return next(k for k, line in enumerate(lines[start:], start + 1) if text in line)


def test_swapped_lanes_are_caught_at_the_formula(synthetic, tmp_path, run):
    def swap(a):
        a["registers_out"][:, [3, 5]] = a["registers_out"][:, [5, 3]]

    path = _corrupt(synthetic, tmp_path, "ldmatrix.m8n8.x4.b16", swap)
    r = run("crosscheck", *PATHS, "--dumps", path)
    assert r.code == 1
    row = _line("ldmatrix.m8n8.yaml", "row = (%laneid >> 2) + 8 * (i >> 1)", after="- id: r.x4")
    assert f"ldmatrix.m8n8.yaml:{row}:" in r.out
    assert "identifies ldmatrix.m8n8.x4.b16: [synthetic dump: reference model, not hardware] lane 3 e0 holds dump: " \
           "row 1, col 2; spec row 0, col 6" in r.out
    assert "warp 0, lane 3, register 0" in r.out and "DISAGREES ldmatrix.m8n8.x4.b16" in r.out


def test_an_ignored_address_that_is_used_is_caught(synthetic, tmp_path, run):
    """.x1 gives lanes 8-31 no address: a register holding lane 20's row is reported as such."""
    def reach(a):
        code = model.ROW_CODE[16] + int(a["addresses"][0, 20]) // 16
        a["registers_out"][0, 0, 0] = (a["registers_out"][0, 0, 0] & 0xFFFF0000) | code

    r = run("crosscheck", *PATHS, "--dumps", _corrupt(synthetic, tmp_path, "ldmatrix.m8n8.x1.b16", reach))
    assert r.code == 1 and "lane 0 e0 holds dump: row 20, col 0 (the row at lane 20's address, which the " \
                           "document's table gives no row)" in r.out


def test_a_wrong_store_is_caught(synthetic, tmp_path, run):
    def swap(a):
        a["image_out"][0:2, [0, 1]] = a["image_out"][0:2, [1, 0]]  # the first code pair, row 0 columns 0 and 1

    r = run("crosscheck", *PATHS, "--dumps", _corrupt(synthetic, tmp_path, "stmatrix.m16n8.x2.trans.b8", swap))
    assert r.code == 1
    assert "identifies stmatrix.m16n8.x2.trans.b8" in r.out and "was stored at dump: row 0, col 1; spec row 0, col 0" in r.out
    assert "byte 0 of the buffer (row slot 0)" in r.out


def test_movmatrix_without_transpose_is_caught(synthetic, tmp_path, run):
    """CuTe's SM75_U32x1_MOVM_T gives d the layout of a: a d equal to a is refuted."""
    def no_op(a):
        a["registers_out"][:] = a["registers_in"]

    r = run("crosscheck", *PATHS, "--dumps", _corrupt(synthetic, tmp_path, "movmatrix.m8n8.trans.b16", no_op))
    assert r.code == 1 and "identifies movmatrix.m8n8.trans.b16" in r.out and "lane 0 d1 holds dump: row 0, col 1; spec " \
                                                                            "row 1, col 0" in r.out


def test_a_wrong_d_of_the_chain_is_located_at_the_composition(synthetic, tmp_path, run):
    def flip(a):
        a["d_out"][2, 7, 1] ^= 1

    r = run("crosscheck", *PATHS, "--dumps", _corrupt(synthetic, tmp_path, "ldmatrix-x4-x2.trans-into-mma.m16n8k16", flip))
    line = _line("ldmatrix.m8n8.yaml", "- id: ldmatrix.x4/m16n8k16/A.f16")
    assert r.code == 1 and f"ldmatrix.m8n8.yaml:{line}:" in r.out and "warp 2, lane 7, register 1 of d_out" in r.out
    assert "fails predicts-D" in r.out


@pytest.mark.parametrize("change, message", [
    (lambda doc: doc.update(format="x"), "not a movement probe dump"),
    (lambda doc: doc.update(version=2), "format version 2"),
    (lambda doc: doc.update(seed="0"), "at seed: '0' is not of type 'integer'"),
    (lambda doc: doc.update(extra=1), "Additional properties are not allowed ('extra' was unexpected)"),
    (lambda doc: doc["blocks"][0].update(count=1.0), "at blocks.0.count: expected an integer, found 1.0"),
    (lambda doc: doc["kernel"].update(target=90), "at kernel.target: 90 is not of type 'string'"),
    (lambda doc: doc["kernel"].update(ptx_sha256="x"), "at kernel.ptx_sha256: 'x' does not match"),
    (lambda doc: doc["device"].update(sm="90"), "at device.sm: '90' is not of type"),
    # the code pairs are found by their kind: a renamed one would drop its cells from the check
    (lambda doc: doc["blocks"][0].update(kind="row-codes#0"), "at blocks.0.kind: 'row-codes#0' does not match"),
    (lambda doc: doc["arrays"].update(extra=doc["arrays"]["addresses"]),
     "at arrays: 'extra' is not one of ['image', 'addresses', 'registers_out']"),
    (lambda doc: doc["arrays"].pop("registers_out"), "at arrays: 'registers_out' is a required property"),
    (lambda doc: doc.update(instruction="stmatrix.sync.aligned.m8n8.x2.shared.b16"),
     "at instruction: 'stmatrix.sync.aligned.m8n8.x2.shared.b16' does not match '^ldmatrix"),
    (lambda doc: doc["arrays"]["addresses"].update(data="!!"), "arrays.addresses.data is not base64"),
    (lambda doc: doc["arrays"]["addresses"].update(shape=[8, 31]), "holds 1024 bytes, not the [8, 31]"),
    (lambda doc: doc["blocks"].append({"kind": "random", "count": 1}), "8 warps, but the blocks have 9"),
])
def test_a_malformed_dump_is_a_located_error(synthetic, tmp_path, run, change, message):
    import gzip

    with gzip.open(os.path.join(synthetic[0], "ldmatrix.m8n8.x2.b16" + movement_dump.SUFFIX), "rt") as fh:
        doc = json.load(fh)
    change(doc)
    path = tmp_path / ("bad" + movement_dump.SUFFIX)
    with gzip.open(path, "wt") as fh:
        json.dump(doc, fh)
    r = run("crosscheck", *PATHS, "--dumps", str(path))
    assert r.code == 3 and f"{path}:1:1" in r.out and message in r.out, r.out


def test_addresses_the_model_cannot_read_are_malformed(synthetic, tmp_path, run):
    def same(a):
        a["addresses"][4, 1] = a["addresses"][4, 0]

    r = run("crosscheck", *PATHS, "--dumps", _corrupt(synthetic, tmp_path, "stmatrix.m8n8.x4.b16", same))
    assert r.code == 3 and "warp 4: the addresses of lanes 0-31 must be distinct rows" in r.out
    r = run("crosscheck", *PATHS, "--dumps", _corrupt(synthetic, tmp_path, "ldmatrix.m8n8.x1.b16",
                                                      lambda a: a["addresses"].__setitem__((0, 30), 1024)))
    assert r.code == 3 and "warp 0: every address must be a 16-byte aligned row inside" in r.out
    r = run("crosscheck", *PATHS, "--dumps", _corrupt(synthetic, tmp_path, "ldmatrix-x4-x2.trans-into-mma.m16n8k16",
                                                      lambda a: a["addresses_b"].__setitem__((1, 3), 8)))
    assert r.code == 3 and "warp 1: every address must be" in r.out


def test_emit_ptx_writes_inputs_and_what_the_model_predicts(tmp_path, run, subjects):
    r = run("probe", PATHS[0], PATHS[5], "--emit-ptx", str(tmp_path))
    assert r.code == 0, r.err
    manifest = json.loads((tmp_path / "manifest-movement.json").read_text())
    assert len(manifest) == 8  # six ldmatrix.m8n8 forms, the chain, movmatrix
    m = next(x for x in manifest if x["instruction"] == "movmatrix.sync.aligned.m8n8.trans.b16")
    assert m["params"] == ["registers_in", "registers_out"] and m["target"] == "sm_75"
    src = np.fromfile(tmp_path / m["arrays"]["registers_in"]["file"], dtype="<u4").reshape(m["arrays"]["registers_in"]["shape"])
    want = np.fromfile(tmp_path / m["arrays"]["registers_out.expected"]["file"], dtype="<u4")
    mov = subjects["movmatrix.sync.aligned.m8n8.trans.b16"]
    assert (want.reshape(src.shape) == model.predict(mov, {"registers_in": src})["registers_out"]).all()
    assert "movmatrix.sync.aligned.m8n8.trans.b16 %moved, %r0;" in (tmp_path / m["ptx"]).read_text()


@needs_ptxas
def test_every_kernel_assembles_at_its_minimum_target(subjects):
    """With the LDSM / STSM / MOVM the instruction should become where nvdisasm is at hand."""
    from checker.probe import sass
    from checker.probe.assemble import assemble, known_targets, ptxas
    from checker.probe.movement_run import minimum_target, ptx_of

    tool = ptxas()
    seen = set()
    for s in subjects.values():
        target = minimum_target(s)
        if known_targets(tool) and target not in known_targets(tool):
            _cannot_target(target)
        ok, message, cubin = assemble(tool, ptx_of(s, target), target.removeprefix("sm_"), s.kernel)
        assert ok, (s.instruction, message)
        if sass.nvdisasm():
            ops = sass.disassemble(cubin)["opcodes"]
            found = [op for op in ops if op.split(".")[0] in ("LDSM", "STSM", "MOVM")]
            assert sum(ops[op] for op in found) == (2 if s.family == "chain" else 1), (s.instruction, ops)
            seen.update(found)
    if sass.nvdisasm():
        assert {"LDSM.16.M88.4", "LDSM.16.MT88.2", "STSM.16.MT88.4", "MOVM.16.MT88", "LDSM.8.MT1616.2",
                "STSM.8.MT168.4", "LDSM.U6", "LDSM.U4"} <= seen


@needs_ptxas
@pytest.mark.parametrize("instruction, target, version, below", [
    ("ldmatrix.sync.aligned.m8n8.x1.shared.b16", "sm_75", "6.5", "6.4"),
    ("stmatrix.sync.aligned.m8n8.x1.shared.b16", "sm_90", "7.8", "7.7"),
    ("movmatrix.sync.aligned.m8n8.trans.b16", "sm_75", "7.8", "7.7"),
    ("ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8", "sm_100a", "8.6", "8.5"),
    ("stmatrix.sync.aligned.m16n8.x1.trans.shared.b8", "sm_100a", "8.6", "8.5"),
])
def test_the_documents_minimum_ptx_versions(subjects, instruction, target, version, below):
    from checker.probe.assemble import assemble, known_targets, ptxas
    from checker.probe.movement_ptx import generate

    tool = ptxas()
    if known_targets(tool) and target not in known_targets(tool):
        _cannot_target(target)
    s = subjects[instruction]
    assert assemble(tool, generate(s, target, version), target.removeprefix("sm_"), s.kernel)[0]
    ok, message, _ = assemble(tool, generate(s, target, below), target.removeprefix("sm_"), s.kernel)
    assert not ok and f"requires PTX ISA .version {version} or later" in message


@needs_ptxas
def test_compile_only_skips_what_a_target_cannot_run(run):
    r = run("probe", *PATHS, "--compile-only", "--arch", "sm_80,sm_90")
    assert r.code == 0, r.out + r.err
    assert "sm_80: 8 assembled, 0 rejected, 21 skipped" in r.out and "needs sm_90 or higher" in r.out
    assert "sm_90: 14 assembled, 0 rejected, 15 skipped" in r.out and "§9.7.14.5.16 Target ISA Notes" in r.out
    r = run("probe", PATHS[4], "--compile-only", "--arch", "sm_90,sm_100a", "--format", "json")
    rows = json.loads(r.out)
    assert [x["result"] for x in rows if x["arch"] == "sm_100a"] == ["assembled"] * 3
    assert [x["result"] for x in rows if x["arch"] == "sm_90"] == ["skipped"] * 3


def test_hardware_dumps_that_agree_are_counted_per_form(synthetic, tmp_path):
    """What the ISA coverage table's hardware column counts; synthetic dumps never count."""
    from checker.probe.agreement import hardware_agreement
    from checker.report import isa_movement

    d = movement_dump.read(os.path.join(synthetic[0], "ldmatrix.m8n8.x4.b16" + movement_dump.SUFFIX))
    header = {k: v for k, v in d.header.items() if k not in ("format", "version")}
    movement_dump.write(str(tmp_path / ("x4" + movement_dump.SUFFIX)),
                        dict(header, source="hardware", note="relabelled by a test",
                             device={"name": "a test's device", "sm": 90}), d.arrays)
    counts, agreeing = hardware_agreement(PATHS, str(tmp_path))
    assert (counts, agreeing) == ({("movement", "ldmatrix.m8n8.x4.b16"): 1}, 1)
    assert hardware_agreement(PATHS, synthetic[0]) == ({}, 0)
    rows = {r.form: r for r in isa_movement.rows([], counts)}
    assert len(rows) == 28 and rows["ldmatrix.sync.aligned.m8n8.x4.shared.b16"].hardware == 1
    assert sum(r.hardware for r in rows.values()) == 1


class _FakeDriver:
    """The driver calls checker.probe.movement_gpu makes, over host memory; a launch runs the
    reference model on the kernel's parameters (so this tests the plumbing, not any hardware)."""

    class CUresult:
        CUDA_SUCCESS = 0

    def __init__(self, subject, probe):
        self.subject, self.probe, self.mem = subject, probe, {}

    def cuModuleLoadData(self, _):
        return 0, "module"

    def cuModuleGetFunction(self, module, name):
        return 0, name

    def cuMemAlloc(self, n):
        self.mem[len(self.mem) + 1] = bytearray(n)
        return 0, len(self.mem)

    def cuMemsetD8(self, ptr, value, n):
        self.mem[ptr][:] = bytes([value]) * n
        return (0,)

    def cuMemcpyHtoD(self, ptr, address, n):
        import ctypes

        self.mem[ptr][:] = ctypes.string_at(address, n)
        return (0,)

    def cuLaunchKernel(self, fn, grid, y, z, block, *rest):
        from checker.probe.movement_ptx import PARAMS
        from checker.probe.movement_run import outputs_of

        ptrs = rest[-2][0]
        names = PARAMS[self.subject.family]
        assert fn == self.subject.kernel.encode() and grid == self.probe.warps and block == 32 and len(ptrs) == len(names)
        shapes = {n: (a.shape, a.dtype) for n, a in self.probe.arrays.items()} | outputs_of(self.subject, self.probe)
        arrays = {n: np.frombuffer(bytes(self.mem[p]), dtype=shapes[n][1]).reshape(shapes[n][0])
                  for n, p in zip(names, ptrs)}
        for n, a in model.predict(self.subject, arrays).items():
            self.mem[ptrs[names.index(n)]][:] = a.tobytes()
        return (0,)

    def cuStreamSynchronize(self, _):
        return (0,)

    def cuMemcpyDtoH(self, address, ptr, n):
        import ctypes

        ctypes.memmove(address, bytes(self.mem[ptr]), n)
        return (0,)

    def cuMemFree(self, _):
        return (0,)

    def cuModuleUnload(self, _):
        return (0,)


@pytest.mark.parametrize("instruction", ["stmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
                                         "ldmatrix.sync.aligned.m8n8.x4.shared.b16"])
def test_the_device_path_writes_a_hardware_dump(subjects, tmp_path, monkeypatch, instruction):
    from checker.probe.gpu import Device
    from checker.probe import movement_run
    from checker.probe.movement_check import crosscheck

    s = subjects[instruction]

    class FakeDevice:
        sm, stream, launch_seconds = 90, None, {}
        check = Device.check

        def __init__(self):
            self.cu = _FakeDriver(s, model.build(s, 0))

        def _name(self, err):
            return str(err)

        def describe(self):
            return {"name": "fake driver (a test)", "sm": 90}

    # the header kernel() gives where there is no ptxas (the dump is schema-checked when written)
    head = {"name": s.kernel, "target": "sm_90", "ptx_version": "8.7", "ptx_sha256": "0" * 64, "assembler": None,
            "sass": None}
    monkeypatch.setattr(movement_run, "kernel", lambda subject, target: (head, None, "ptx"))
    path = movement_run.record(s, str(tmp_path), "sm_90", 0, FakeDevice())
    assert movement_dump.read(path).header["source"] == "hardware"
    results, stats = crosscheck(subjects, [path])
    assert stats["hardware"] == 1 and [r.verdict for r in results] == ["PROVED", "PROVED"]


def test_a_composition_whose_fragment_no_longer_resolves_is_a_located_error(run, tmp_path):
    """QA: m16n8k16's A.f16 edited to `operand: B` once ended `crosscheck` of ldmatrix.m8n8 in
    AttributeError ('NoneType' object has no attribute 'fragment'): the chained probe found no
    mma variant to run. It said which composition names the fragment and where the fragment is
    declared; now the edit is refused at its own line; exit 3 (a malformed spec) either way."""
    shutil.copy(os.path.join(SPECS, "ldmatrix.m8n8.yaml"), tmp_path)
    text = open(os.path.join(SPECS, "m16n8k16.yaml"), encoding="utf-8").read()
    before = "      - id: A.f16\n        operand: A\n"
    assert text.count(before) == 1, "m16n8k16's A.f16 moved"
    (tmp_path / "m16n8k16.yaml").write_text(text.replace(before, "      - id: A.f16\n        operand: B\n"))
    chain = os.path.join(ROOT, "reports", "synthetic", "ldmatrix-x4-x2.trans-into-mma.m16n8k16" + movement_dump.SUFFIX)
    r = run("crosscheck", str(tmp_path / "ldmatrix.m8n8.yaml"), "--dumps", chain)
    assert r.code == 3 and "Traceback" not in r.err
    # since a fragment's id must start with its operand (tests/unit/test_field_edits.py), the edit
    # is refused where it was made, before the composition that names the fragment is read
    declared = _line("m16n8k16.yaml", "- id: A.f16")
    assert r.err.startswith(f"{tmp_path / 'm16n8k16.yaml'}:{declared}:") and \
        "A.f16 is a fragment of matrix B: its id starts with B." in r.err, r.err


def test_without_the_forms_it_runs_there_is_no_chain():
    """An ldmatrix.m8n8 spec that no longer gives the x4 form has no chained kernel (its dumps are
    then of no spec given, as any removed form's are), not a StopIteration."""
    from checker.probe.movement_chain import CHAIN_A, chain_of
    from checker.probe.movement_forms import forms_of

    path = os.path.join(SPECS, "ldmatrix.m8n8.yaml")
    spec, mma = load_spec(path), load_spec(os.path.join(SPECS, "m16n8k16.yaml"))
    forms = forms_of(path, spec)
    assert chain_of(forms, spec, "m16n8k16.yaml", mma) is not None
    assert chain_of([f for f in forms if f.instruction != CHAIN_A], spec, "m16n8k16.yaml", mma) is None


def test_stmatrix_m8n8_excludes_b8_on_no_sentence_of_the_document_and_says_so():
    """The one restriction of stmatrix's shape to its type the document prints is ".m16n8 shape is
    valid only for .b8 type."; nothing says .m8n8 is .b16 only. The spec states that sentence
    (verbatim, found in 9.1 and 9.2) and says in its notes that no sentence excludes .b8 and what
    ptxas does; the support row reads .b16 from the 16-byte rows and Figure 107's caption, and
    gives no .b8 form, so no layout may name one."""
    import yaml

    sec = load_spec(os.path.join(SPECS, "stmatrix.m8n8.yaml")).sections[0]
    assert "`.m16n8` shape is valid only for `.b8` type." in sec.stated
    notes = " ".join(yaml.safe_load(open(os.path.join(SPECS, "stmatrix.m8n8.yaml"), encoding="utf-8"))
                     ["sections"][0]["notes"].split())  # prose: the model keeps none
    assert "excludes .b8 on no sentence of the document" in notes
    assert "Incorrect instruction type specified for stmatrix with shape '.m8n8'" in notes
    for version, path in (("9.1", os.path.join(DOCUMENT, "ptx-isa", "9.7.14.5.16-stmatrix.md")),
                          ("9.2", os.path.join(DOCUMENT, "ptx-isa-9.2", "14-warp-level-mma", "mma", "stmatrix.md"))):
        text = open(path, encoding="utf-8").read()
        restrictions = [line for line in text.splitlines() if "valid only for" in line or " only with " in line]
        assert restrictions == ["`.m16n8` shape is valid only for `.b8` type."], (version, restrictions)
    row = next(r for r in movement_support() if (r["instruction"], r["shape"]) == ("stmatrix", "m8n8"))
    assert row["types"] == ["b16"] and "stmatrix fragment layout for one 8x8 matrix with 16-bit elements" in row["quotes"]


@needs_ptxas
@pytest.mark.parametrize("target", ["sm_90", "sm_100a"])
def test_ptxas_refuses_stmatrix_m8n8_b8(subjects, target):
    """What the spec's exclusion of .m8n8 .b8 rests on besides the document's figures: the
    assembler refuses it (ptxas 13.0: "Incorrect instruction type specified for stmatrix with shape
    '.m8n8'"), where the .b16 form of the same kernel assembles."""
    from checker.probe.assemble import assemble, known_targets, ptxas
    from checker.probe.movement_ptx import generate

    tool = ptxas()
    if known_targets(tool) and target not in known_targets(tool):
        _cannot_target(target)
    s = subjects["stmatrix.sync.aligned.m8n8.x1.shared.b16"]
    text = generate(s, target, "8.8")
    assert assemble(tool, text, target.removeprefix("sm_"), s.kernel)[0]
    b8 = text.replace("stmatrix.sync.aligned.m8n8.x1.shared.b16", "stmatrix.sync.aligned.m8n8.x1.shared.b8")
    assert b8 != text
    ok, message, _ = assemble(tool, b8, target.removeprefix("sm_"), s.kernel)
    assert not ok and "Incorrect instruction type specified for stmatrix with shape '.m8n8'" in message
