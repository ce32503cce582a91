"""`checker probe`'s text for a spec, or an output folder, whose path holds what a terminal acts on
(an escape sequence, a carriage return, a newline followed by a forged result line, a bidi
override): --compile-only's rejections of every family (mma, ldmatrix/stmatrix/movmatrix, wgmma),
--emit-ptx and --synthetic show it escaped, each line one line, as every other text output does
(tests/unit/test_terminal_text.py). The assembler is a stand-in that rejects every kernel, so no
ptxas is needed. The PTX files written are exports: a path reaching their comment stays inside it."""
import dataclasses
import os
import shutil

import pytest

from conftest import SPECS

FORGED = "m16n8k256.yaml: A.b1: proved fragment-shape, defined, in-range, injective, covers"
FOLDER = "d\x1b[31mx\rhidden\n" + FORGED + "\u202e"
PTXAS_SAYS = ("ptxas probe.ptx, line 9; error   : rejected by a test",
              "ptxas fatal   : Ptx assembly aborted due to errors")


def _escaped(text: str) -> str:
    """What the output shows of `text`: repr's escapes of what is not printable."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def _folder(tmp_path, *specs) -> str:
    """A folder of that name under tmp_path, holding copies of `specs` (files of specs/)."""
    folder = tmp_path / FOLDER
    try:
        folder.mkdir()
    except (OSError, UnicodeEncodeError):
        pytest.skip("the file system takes no such name")
    for name in specs:
        shutil.copy(os.path.join(SPECS, name), folder / name)
    return str(folder)


def _shown_escaped(text: str, path: str) -> None:
    assert _escaped(path) in text, text  # the path is there, escaped: \x1b[31m, \r, \n, \u202e
    assert [ch for ch in text if not ch.isprintable() and ch != "\n"] == []
    # the newline in the path starts no line of the output: nothing forged
    assert not any(line.startswith(FORGED) or line.startswith("hidden") for line in text.splitlines())


@pytest.fixture
def rejecting(monkeypatch):
    """An assembler that rejects every kernel with a two-line message, and no nvdisasm."""
    from checker.probe import assemble, sass, wgmma_build

    def rejects(tool, text, sm, name):
        return False, "\n".join(PTXAS_SAYS), b""

    monkeypatch.setattr(assemble, "assemble", rejects)
    monkeypatch.setattr(wgmma_build, "assemble", rejects)
    monkeypatch.setattr(assemble, "ptxas", lambda: "ptxas")
    monkeypatch.setattr(assemble, "known_targets", lambda tool: frozenset())
    monkeypatch.setattr(sass, "nvdisasm", lambda: None)


REJECTED = {  # spec, --arch, what the rejection line says after the path
    "mma": ("m16n8k256.yaml", "sm_80", ": error: ptxas (sm_80) rejects mma.sync.aligned.m16n8k256."),
    "ldmatrix/stmatrix/movmatrix": ("movmatrix.m8n8.yaml", "sm_80",
                                    ": error: ptxas (sm_80) rejects movmatrix.sync.aligned.m8n8.trans.b16:"),
    "wgmma": ("m64nNk256.yaml", "sm_90a", ": error: ptxas (sm_90a) rejects wgmma.mma_async.sync.aligned.m64n8k256."),
}


@pytest.mark.parametrize("family", REJECTED)
def test_a_rejection_shows_the_spec_path_escaped(run, rejecting, tmp_path, family):
    name, arch, says = REJECTED[family]
    folder = _folder(tmp_path, name)
    r = run("probe", os.path.join(folder, name), "--compile-only", "--arch", arch)
    assert r.code == 1, r.out + r.err
    _shown_escaped(r.out, folder)
    rows = r.out.splitlines()
    located = [row for row in rows if row.startswith(_escaped(os.path.join(folder, name))) and says in row]
    assert located, r.out
    # ptxas's message follows, each of its lines indented on a line of its own, as before
    at = rows.index(located[0])
    assert rows[at + 1:at + 3] == ["    " + line for line in PTXAS_SAYS]


def test_a_wgmma_kernel_of_the_wrong_sass_shows_the_spec_path_escaped(run, rejecting, monkeypatch, tmp_path):
    from checker.probe import wgmma_build

    def built(vs, tool, disasm, workers=1):  # assembled, but into an HMMA: not one BGMMA
        return [wgmma_build.Built(v, True, "assembled", {"opcodes": {"HMMA.16816.F32": 1}}) for v in vs]

    monkeypatch.setattr(wgmma_build, "build_all", built)
    folder = _folder(tmp_path, "m64nNk256.yaml")
    r = run("probe", os.path.join(folder, "m64nNk256.yaml"), "--compile-only", "--arch", "sm_90a")
    assert r.code == 1, r.out + r.err
    _shown_escaped(r.out, folder)
    assert ": error: wgmma_probe_m64n8k256_s32_b1_b1_ar became HMMA.16816.F32 x1, not one BGMMA" in r.out


def test_emit_ptx_shows_its_folder_escaped(run, tmp_path):
    folder = _folder(tmp_path)
    specs = [os.path.join(SPECS, n) for n in ("m16n8k256.yaml", "movmatrix.m8n8.yaml", "m64nNk8.yaml")]
    r = run("probe", *specs, "--emit-ptx", folder)
    assert r.code == 0, r.err
    _shown_escaped(r.out, folder)
    assert f"how to run them: {_escaped(os.path.join(folder, 'README-movement.md'))}" in r.out.splitlines()[-1]
    assert os.path.exists(os.path.join(folder, "wgmma-manifest.json"))  # the files themselves: where asked


def test_synthetic_shows_its_folder_escaped(run, tmp_path):
    folder = _folder(tmp_path)
    r = run("probe", os.path.join(SPECS, "movmatrix.m8n8.yaml"), "--synthetic", "--out", folder)
    assert r.code == 0, r.err
    _shown_escaped(r.out, folder)
    assert r.out.splitlines()[-1].startswith(
        f"1 synthetic (reference model, not hardware) dumps in {_escaped(folder)}, 0 skipped; ")


def test_a_path_in_a_kernels_comment_stays_in_the_comment():
    """The spec's file name reaches the comment heading an ldmatrix/stmatrix/movmatrix kernel (and a
    caller's text a wgmma module's): escaped as the other exports escape it (checker.export.safe),
    so that it cannot end the comment and write PTX."""
    from checker.export import safe
    from checker.probe import movement_ptx, wgmma_ptx
    from checker.probe.movement_run import subjects_of
    from checker.spec.checked import load_checked

    path = os.path.join(SPECS, "movmatrix.m8n8.yaml")
    form = next(iter(subjects_of([(path, load_checked(path))]).values()))
    plain = movement_ptx.generate(form, "sm_80")
    hostile = "x\n.version 1.0\n\x1b[2J\\" + FORGED + ".yaml"
    text = movement_ptx.generate(dataclasses.replace(form, spec_path=os.path.join("specs", hostile)), "sm_80")
    head = f"{form.instruction}: layout {form.layout.id} of {hostile}"
    assert text.splitlines()[0] == safe.comment("//", head) and text.count("\n") == plain.count("\n")
    assert text.splitlines()[1:] == plain.splitlines()[1:]

    vs = wgmma_ptx.variants(load_checked(os.path.join(SPECS, "m64nNk8.yaml")))[:1]
    plain = wgmma_ptx.module(vs, "wgmma register-fragment probe")
    text = wgmma_ptx.module(vs, "probe\n.target sm_80 ??/")
    assert text.splitlines()[0] == "// probe\\n.target sm_80 ??\\x2f"
    assert text.splitlines()[1:] == plain.splitlines()[1:]
