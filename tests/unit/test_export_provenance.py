"""An export's header says where its formula comes from: the document's printed text (errata
applied) for the mma fragments, and a reading of a figure, with what it was read from, for the
layouts the document gives only as figures (ldmatrix, stmatrix, movmatrix, wgmma). A reading
called "the document's" text would send a reader to look for a formula the document never prints."""
import os

import pytest

from conftest import SPECS

DOCUMENT_TEXT = "the source text is the document's, errata applied"


def _header(run, spec, fid, to):
    r = run("export", os.path.join(SPECS, spec), "--fragment", fid, "--to", to)
    assert r.code == 0, r.err
    return "\n".join(line for line in r.out.splitlines()[:8])


@pytest.mark.parametrize("to", ["python", "cpp", "triton", "cute"])
@pytest.mark.parametrize("spec,fid,names", [
    ("ldmatrix.m8n8.yaml", "r.x4.trans", ["Figure 104", "CuTe SM75_U16x8_LDSM_T"]),
    ("ldmatrix.m16n16.yaml", "r.x1.trans", ["Figure 105", "CuTe SM100_U8x8_LDSM_T"]),
    ("stmatrix.m16n8.yaml", "r.x2.trans", ["Figure 108", "CuTe SM100_U8x8_STSM_T"]),
    ("movmatrix.m8n8.yaml", "d", ["Figure 110", "no published encoding", "basis"]),
    ("m64nNk16.yaml", "D.float[N=8]", ["Figure 149", "CuTe"]),
])
def test_a_reading_of_a_figure_is_not_called_the_documents_text(run, spec, fid, names, to):
    head = _header(run, spec, fid, to)
    assert DOCUMENT_TEXT not in head
    assert "not the document's text" in head
    for name in names:
        assert name in head


@pytest.mark.parametrize("to", ["python", "cute"])
def test_a_printed_formula_is_still_the_documents_text(run, to):
    head = _header(run, "m16n8k16.yaml", "A.f16", to)
    assert DOCUMENT_TEXT in head
    assert "reading of" not in head
