"""The wgmma rows of the ISA coverage table: every form of 9.7.15.2 x 9.7.15.3 is a row (the quotes
each row is read from are in its section, word for word), the dense rows are given and proved at
every N by the wgmma specs, the probe's kernels are counted per row (948 in all: every kernel of
checker/probe/wgmma_ptx.py), and the sparse rows stay, marked as having no spec yet."""
import glob
import os

import pytest

from conftest import ROOT, SPECS

from checker.report import isa_wgmma
from checker.report.doc import Table


def test_the_rows_are_the_documents():
    folder = os.path.join(ROOT, "..", "shared", "ptx-isa")
    rows = isa_wgmma.support()
    assert len(rows) == 11 and sum(r["sparse"] for r in rows) == 5
    assert isa_wgmma.ns(rows[0]) == list(range(8, 257, 8))
    assert isa_wgmma.ns(rows[4]) == [8, 16, 24, 32] + list(range(48, 257, 16))  # .u8/.s8: 18 N
    assert isa_wgmma.ns_text(isa_wgmma.ns(rows[4])) == "8..32 step 8, 48..256 step 16"
    if not os.path.isdir(folder):
        pytest.skip("../shared/ptx-isa is not beside this checkout")
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
    assert sum(r.kernels for r in dense if r.operand == "A") == 948
    d16 = next(r for r in dense if r.shape == "m64nNk16" and r.operand == "D" and r.types == ["f16", "f32"])
    assert d16.kernels == 128 and d16.specified["f16"] == [("m64nNk16", "D.float", "D.float[N=8]")]


def test_sparse_rows_are_kept_with_no_spec_yet(wgmma_rows):
    sparse = [r for r in wgmma_rows if r.instruction == "wgmma.mma_async.sp"]
    assert len(sparse) == 10 and {r.shape for r in sparse} == {"m64nNk16", "m64nNk32", "m64nNk64"}
    assert all(not r.specified and r.kernels == 0 and r.ptx == "8.2" for r in sparse)
    table = next(b for b in isa_wgmma.blocks(wgmma_rows) if isinstance(b, Table) and "instruction" in b.header)
    assert sum("no spec yet" in row for row in table.rows) == 10
