"""The wgmma rows of the ISA coverage table: every form of 9.7.15.2 x 9.7.15.3 is a row (the quotes
each row is read from are in its section, word for word), the dense rows are given and proved at
every N by the wgmma specs, the probe's kernels are counted per row (1152 in all: every kernel of
checker/probe/wgmma_ptx.py, 948 behind no-swizzle descriptors and 204 swizzled), and the sparse rows
are given by the wgmma.sp specs (A) and the dense D their `same_as` names, or marked as having no
spec yet where those specs are not there."""
import glob
import os

import pytest

from conftest import DOCUMENT, SPECS

from checker.report import isa_wgmma
from checker.report.doc import Table


def test_the_rows_are_the_documents():
    folder = os.path.join(DOCUMENT, "ptx-isa")
    rows = isa_wgmma.support()
    assert len(rows) == 11 and sum(r["sparse"] for r in rows) == 5
    assert isa_wgmma.ns(rows[0]) == list(range(8, 257, 8))
    assert isa_wgmma.ns(rows[4]) == [8, 16, 24, 32] + list(range(48, 257, 16))  # .u8/.s8: 18 N
    assert isa_wgmma.ns_text(isa_wgmma.ns(rows[4])) == "8..32 step 8, 48..256 step 16"
    text = " ".join(" ".join(open(p, encoding="utf-8").read().split())
                    for p in glob.glob(os.path.join(folder, "9.7.15.*.md")))
    for r in rows:
        for q in r["quotes"]:
            assert " ".join(q.split()) in text, q


@pytest.fixture(scope="module")
def wgmma_rows():
    from checker.commands.report import _wgmma_kernels
    from checker.options import Options
    from checker.prover import prove_paths
    from checker.report.gather import gather

    files = sorted(glob.glob(os.path.join(SPECS, "m64nN*.yaml")))
    report = gather(files, prove_paths(files, Options(cross_check=True, jobs=1)), _wgmma_kernels(files), 0)
    return isa_wgmma.rows(report.specs, report.hardware)


def test_dense_rows_are_given_and_proved_at_every_n_and_probed(wgmma_rows):
    dense = [r for r in wgmma_rows if r.instruction == "wgmma.mma_async"]
    assert len(dense) == 12  # 6 forms x (A, D)
    for r in dense:
        for t in r.types:
            assert r.covered[t] == r.proved[t] == len(r.ns), (r.shape, r.operand, t)
        assert r.kernels > 0
    assert sum(r.kernels for r in dense if r.operand == "A") == 1152
    d16 = next(r for r in dense if r.shape == "m64nNk16" and r.operand == "D" and r.types == ["f16", "f32"])
    assert d16.specified["f16"] == [("m64nNk16", "D.float", "D.float[N=8]")]


def test_sparse_rows_are_given_by_the_sparse_specs_and_the_dense_d_they_name(wgmma_rows):
    sparse = [r for r in wgmma_rows if r.instruction == "wgmma.mma_async.sp"]
    assert len(sparse) == 10 and {r.shape for r in sparse} == {"m64nNk16", "m64nNk32", "m64nNk64"}
    assert all(r.kernels > 0 and r.ptx == "8.2" for r in sparse)
    assert sum(r.kernels for r in sparse if r.operand == "A") == 64  # checker/probe/wgmma_sp.py, 2 N x 2 A sources
    for r in sparse:
        for t in r.types:
            assert r.covered[t] == r.proved[t] == len(r.ns), (r.shape, r.operand, t)
    a32 = next(r for r in sparse if r.shape == "m64nNk32" and r.operand == "A" and r.types == ["f16"])
    assert a32.specified["f16"] == [("m64nNk32.sp", "A.sp.f16", "A.sp.f16")]
    d16 = next(r for r in sparse if r.shape == "m64nNk16" and r.operand == "D")  # .tf32: m64nNk8's D
    assert d16.specified["f32"] == [("m64nNk8", "D.f32", "D.f32[N=8]")]


def test_sparse_rows_without_their_specs_say_no_spec_yet():
    from checker.options import Options
    from checker.prover import prove_paths
    from checker.report.gather import gather

    files = sorted(f for f in glob.glob(os.path.join(SPECS, "m64nN*.yaml")) if ".sp." not in f)
    report = gather(files, prove_paths(files, Options(cross_check=True, jobs=1)), {}, 0)
    sparse = [r for r in isa_wgmma.rows(report.specs, report.hardware) if r.instruction.endswith(".sp")]
    assert len(sparse) == 10 and all(not r.specified for r in sparse)
    table = next(b for b in isa_wgmma.blocks(sparse) if isinstance(b, Table) and "instruction" in b.header)
    assert sum("no spec yet" in row for row in table.rows) == 10
