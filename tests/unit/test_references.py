"""The reference data: every shipped file loads, every entry is pinned (repository, 40-hex commit,
path, line or anchor) and names a spec fragment that exists or is reported not modelled; the loader
refuses malformed data with a located error."""
import os

import pytest

from checker.errors import SpecError
from checker.references import load
from conftest import SPECS


def test_every_shipped_file_loads_and_every_entry_is_pinned():
    refs = load.load_all()
    assert len(refs) >= 90
    assert {r.library for r in refs} >= {"CuTe", "Triton", "MLIR"}
    for r in refs:
        assert len(r.commit) == 40 and r.path and (r.line or r.anchor), r.name
        assert r.file.startswith("checker/references/data/")
        if r.status == "historical":
            assert r.note and "PR #" in r.note and r.expect == "differs"


def test_every_entry_names_a_fragment_that_exists_or_a_spec_not_yet_written():
    from checker.spec.load import load_spec

    specs = {os.path.splitext(n)[0]: load_spec(os.path.join(SPECS, n)) for n in os.listdir(SPECS)
             if n.endswith(".yaml") and n not in ("relations.yaml", "untranscribed.yaml")}
    for r in load.load_all():
        if r.spec in specs:
            assert specs[r.spec].fragment(r.fragment_id) is not None, (r.name, r.fragment_id)
        else:
            assert r.spec.startswith("m64nN"), r.spec  # the wgmma specs are not written yet


def test_the_historical_bugs_are_kept():
    names = {(r.name, r.commit[:8]) for r in load.load_all() if r.status == "historical"}
    assert ("SM80_16x8x256_S32U1U1S32_TN_XORPOPC.ALayout", "be692b48") in names  # before PR #1856
    assert ("SM80_16x8x256_S32U1U1S32_TN_XORPOPC.BLayout", "be692b48") in names
    assert ("SM80_16x8x32_S32S4S4S32_TN.BLayout", "ea46e277") in names  # before PR #3140
    assert ("SM75_16x8x8_F32F16F16F32_TN.ALayout", "e0aaa3c3") in names  # before CUTLASS 3.2.1 (PR #1113)
    assert ("SM75_16x8x8_F32F16F16F32_TN.CLayout", "e0aaa3c3") in names


# Instruction fragments a library never issues, so no entry of its data names them (each data file's
# header cites the upstream lines): (spec, fragment id), or (spec, None) for every fragment of it.
NOT_ISSUED = {
    # Mosaic GPU's wgmma takes K = 32 // the element's bytes and no i1 operand: no .b1 wgmma
    "jax-mosaic_gpu.yaml": {("m64nNk256", None)},
    # nvgpu.warpgroup.mma(.store)'s verifiers admit only an f32 accumulator: no s32 D of .b1
    "mlir-nvgpu_wgmma.yaml": {("m64nNk256", None)},
    # Triton has no .b1 dot
    "triton-nvmma_v3.yaml": {("m64nNk256", None)},
    # the mma v2 lowering issues m16n8k16 for .f16/.bf16 only (.s8 and 8-bit floats: m16n8k32)
    "triton-linear_layout_conversions.yaml": {("m16n8k16", "C.int")},
    # Mosaic GPU's mma.py issues m16n8k{256 // bits} alone: k16 for 16-bit floats (none of k16's
    # integer or .f64 fragments), k32 for 8-bit types (not k32's .s4), k64 for i4; no other shape
    "jax-mosaic_gpu_mma.yaml": {("m16n8k16", "A.i8"), ("m16n8k16", "B.i8"), ("m16n8k16", "C.int"),
                                ("m16n8k16", "A.f64"), ("m16n8k16", "B.f64"), ("m16n8k32", "A.i4"),
                                ("m16n8k32", "B.i4"), ("m16n8k8", None), ("m16n8k4", None), ("m8n8k4", None),
                                ("m8n8k16", None), ("m8n8k32", None), ("m8n8k128", None), ("m16n8k128", None),
                                ("m16n8k256", None)},
    # the SM120 sparse trait issues the sparse kind::f8f6f4 m16n8k64 alone: not the dense m16n8k64
    # (whose C.s32 is not the sparse one's C: the document names m16n8k16's C.int) nor the sparse .s4
    "cutlass-mma_traits_sm120_sparse.yaml": {("m16n8k64", "A.i4"), ("m16n8k64", "B.i4"), ("m16n8k64", "C.s32"),
                                             ("m16n8k64", "A.sp.i4")},
}


def test_no_entry_names_an_instruction_its_library_does_not_issue():
    """A layout equal to a fragment's is no evidence for that fragment where the library never issues
    its instruction: MLIR's warpgroup store for m64nNk256's s32 D (refused by the ops' verifiers),
    Mosaic GPU's 32-bit accumulator for the same D (Mosaic GPU has no .b1 wgmma), and Triton's mma v2
    accumulator for m16n8k16's C.int were entered, and proved, though none of them is issued."""
    for r in load.load_all():
        banned = NOT_ISSUED.get(os.path.basename(r.file), set())
        assert (r.spec, None) not in banned and (r.spec, r.fragment) not in banned, (r.file, r.name)


GOOD = """library: CuTe
repo: NVIDIA/cutlass
commit: 7107b05535f8977f5ecb9d01ee203205b1fd9bc4
path: include/cute/atom/mma_traits_sm80.hpp
entries:
  - name: X.ALayout
    line: 87
    fragment: {spec: m16n8k16, id: A.f16}
    status: current
    encoding:
      kind: cute
      layout: "((4,8),(2,2,2)):((32,1),(16,8,128))"
      tile: [16, 16]
"""


@pytest.mark.parametrize("old, new, line, col, what", [
    ("library: CuTe", "library: cute", 1, 10, "expected one of CuTe, Triton, MLIR, JAX"),
    ("commit: 7107b05535f8977f5ecb9d01ee203205b1fd9bc4", "commit: 7107b055", 3, 9, "a 40-hex commit"),
    ("repo: NVIDIA/cutlass", "repo: cutlass", 2, 7, "owner/name"),
    ("    line: 87", "    line: 0", 7, 11, "an integer in 1.."),
    ("    line: 87", "    anchor: f", 6, 5, None),  # fine: an anchor instead of a line
    ("    line: 87\n", "", 6, 5, "exactly one of line"),
    ("    status: current", "    status: old", 9, 13, "expected one of current, historical"),
    ("    status: current", "    status: historical", 6, 5, "needs a note"),
    ("      kind: cute", "      kind: pycute", 11, 13, "expected one of cute, triton, formula, table"),
    ("      tile: [16, 16]", "      tile: [16]", 13, 13, "expected [rows, cols]"),
    ("      tile: [16, 16]", "      tile: [16, 16]\n      colour: red", 14, 7, "unknown field 'colour'"),
    ("(16,8,128))", "(16,8))", 12, 40, "not congruent"),
    ("{spec: m16n8k16, id: A.f16}", "{spec: m16n8k16}", 8, 15, "missing field 'id'"),
])
def test_malformed_data_is_refused_with_a_location(tmp_path, refused, old, new, line, col, what):
    assert old in GOOD
    if what is None:
        path = tmp_path / "x.yaml"
        path.write_text(GOOD.replace(old, new))
        assert load.load_file(str(path))[0].anchor == "f"
        return
    refused(GOOD.replace(old, new), line, col, what)


MOSAIC = """library: JAX
repo: jax-ml/jax
commit: cec06d116c05f0d52adfceee3d3b730fdbcb0ce5
path: jax/experimental/mosaic/gpu/mma.py
entries:
  - name: X.acc
    line: 54
    fragment: {spec: m16n8k16, id: C.float}
    status: current
    encoding:
      kind: mosaic-tiled
      tiling: [[64, 8], [16, 8], [8, 8], [2]]
      warp_dims: [-7, {replicated: 1}]
      lane_dims: [-3, -2]
      vector_dim: -1
      array: [64, 8]
      warp: 0
"""


@pytest.mark.parametrize("old, new, line, col, what", [
    ("      warp_dims: [-7, {replicated: 1}]", "      warp_dim: -7", 13, 7,
     "unknown field 'warp_dim'; expected kind, tiling, warp_dims"),
    ("{replicated: 1}", "{replicated: 0}", 13, 36, "expected an integer in 1..4"),
    ("{replicated: 1}", "{times: 1}", 13, 24, "unknown field 'times'; expected replicated"),
    ("      warp_dims: [-7, {replicated: 1}]", "      warp_dims: []", 13, 18, "expected a list of 1..4 dimensions"),
    ("      array: [64, 8]", "      array: [64]", 16, 14, "expected [rows, cols]"),
    ("      warp: 0", "      warp: 4", 17, 13, "expected an integer in 0..3"),
    # what Mosaic GPU's TiledLayout and Tiling refuse (their __post_init__ at the pinned commit):
    # these had loaded, and were compared (lanes beyond a warp's 32) or failed only when compared
    # (exit 1, at the entry's first line)
    ("lane_dims: [-3, -2]", "lane_dims: [-3, -2, -5]", 14, 18, "span 64 lanes, not the 32 of a warp"),
    ("vector_dim: -1", "vector_dim: -3", 15, 19, "dimension -3 is partitioned twice"),
    ("vector_dim: -1", "vector_dim: -8", 15, 19, "expected a dimension in -7..-1 (the tiling makes 7)"),
    ("vector_dim: -1", "vector_dim: 1", 15, 19, "expected a dimension in -7..-1"),
    ("warp_dims: [-7, {replicated: 1}]", "warp_dims: [-7, {replicated: 2}]", 13, 18, "span 8 warps"),
    ("[16, 8], [8, 8], [2]]", "[16, 8], [8, 8, 1], [2]]", 12, 34, "a higher rank than the one before it"),
    ("[[64, 8], [16, 8]", "[[64, 8], [16, 3]", 12, 15, "does not apply to its own first tile [64, 8]"),
    ("array: [64, 8]", "array: [64, 12]", 16, 14, "that the tiling applies to, found [64, 12]"),
    ("array: [64, 8]", "array: [4096, 4096]", 16, 14, "at most 65536 cells"),
])
def test_malformed_mosaic_fields_are_refused_with_a_location(tmp_path, refused, old, new, line, col, what):
    """The fields a warp-level MMA layout adds to kind mosaic-tiled (warp_dims with Replicated, the
    warpgroup's array, the warp compared) are validated like every other."""
    path = tmp_path / "x.yaml"
    assert old in MOSAIC
    path.write_text(MOSAIC)
    fields = load.load_file(str(path))[0].encoding.fields
    assert fields["array"] == (64, 8) and fields["warp"] == 0 and fields["warp_dims"][0] == -7
    refused(MOSAIC.replace(old, new), line, col, what)


def test_formula_and_table_encodings_are_checked(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text(GOOD.replace("""      kind: cute
      layout: "((4,8),(2,2,2)):((32,1),(16,8,128))"
      tile: [16, 16]""", """      kind: formula
      elements: 8
      formula: |
        row = %laneid / 4 +
        col = 0"""))
    with pytest.raises(SpecError) as exc:
        load.load_file(str(path))
    assert exc.value.span.line == 14, str(exc.value)
    path.write_text(GOOD.replace("""      kind: cute
      layout: "((4,8),(2,2,2)):((32,1),(16,8,128))"
      tile: [16, 16]""", """      kind: table
      entries: [[0, 0, 0, 0], [0, 0, 1, 1]]"""))
    with pytest.raises(SpecError, match="given twice"):
        load.load_file(str(path))


def test_a_hostile_data_file_is_refused(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text("a: &x [1]\nb: *x\n")
    with pytest.raises(SpecError):
        load.load_file(str(path))
    path.write_text("[" * 100 + "]" * 100)
    with pytest.raises(SpecError, match="nesting"):
        load.load_file(str(path))


def test_docs_list_every_entry_with_its_pin():
    """Every entry of every data file docs/references.md has a section for (this one's own files among
    them) is listed with its line or anchor and its commit."""
    from conftest import ROOT

    with open(os.path.join(ROOT, "docs", "references.md"), encoding="utf-8") as fh:
        doc = fh.read()
    refs = [r for r in load.load_all() if f"### `{r.file}`" in doc]
    files = {r.file for r in refs}
    assert {f"checker/references/data/{n}" for n in (
        "cutlass-mma_traits_sm70.yaml", "cutlass-mma_traits_sm75.yaml", "cutlass-mma_traits_sm80.yaml",
        "cutlass-mma_traits_sm90.yaml", "cute-gmma.yaml", "mlir-nvgpu_mmautils.yaml",
        "triton-linear_layout_conversions.yaml", "jax-mosaic_gpu_mma.yaml", "cutlass-mma_traits_sm120_sparse.yaml")} <= files
    for r in refs:
        where = f"line {r.line}" if r.line else f"`{r.anchor}`"
        assert f"| `{r.name}` | {where}" in doc, r.name
        assert r.commit in doc or r.commit[:12] in doc


def test_every_kind_is_judged_none_is_left_unmodelled(tmp_path, run):
    """A copy atom (kind cute-copy) is compared like any other encoding: CuTe's movmatrix atom, whose
    DstLayout is its SrcLayout, is refuted against movmatrix's d, as its entry expects."""
    path = tmp_path / "x.yaml"
    path.write_text(GOOD.replace("""      kind: cute
      layout: "((4,8),(2,2,2)):((32,1),(16,8,128))"
      tile: [16, 16]""", """      kind: cute-copy
      registers: "(32,32):(32,1)"
      tile: [8, 128]
      element_bits: 16""").replace("{spec: m16n8k16, id: A.f16}", "{spec: movmatrix.m8n8, id: d}")
                    .replace("    status: current", "    status: current\n    expect: refuted"))
    ref = load.load_file(str(path))[0]
    assert ref.encoding.kind == "cute-copy" and ref.expect == "differs"
    r = run("conformance", SPECS, "--references", str(path))
    assert r.code == 0 and "movmatrix.m8n8 d: differs at 56 of 64 points; the first: thread 0 d1" in r.out
    assert "0 not modelled" in r.out


@pytest.mark.parametrize("name, old, new, spec, line, col, what", [
    # a wgmma reading's sources are held to the entries' lines: a line that is text or a list had
    # ended the spec's load in a TypeError (sorting "836" among ints; a list in a set)
    ("jax-mosaic_gpu.yaml", "    line: 836\n", '    line: "836"\n', "m64nNk16.yaml", 19, 11,
     "expected an integer in 1..16777216, found the string '836'"),
    ("cute-gmma.yaml", "    line: 447\n", "    line: [447]\n", "m64nNk16.yaml", 20, 11, "expected an integer in 1..16777216, found a list"),
    # a movement layout's read_from names entries by library: a file without one, a KeyError
    ("cute-copy.yaml", "library: CuTe\n", "librar: CuTe\n", "ldmatrix.m8n8.yaml", 17, 1, "unknown field 'librar'"),
])
def test_a_malformed_data_file_a_spec_reads_is_its_own_located_error(tmp_path, monkeypatch, run, name, old, new,
                                                                    spec, line, col, what):
    """The spec loader reads the shipped data for a reading's sources and read_from; a data file
    whose fields are not what the data's loader takes is refused there, at its line and column
    (exit 3), not a Python traceback (exit 1)."""
    import shutil

    from checker.spec import provenance

    data = tmp_path / "data"
    shutil.copytree(provenance.DATA, data)
    text = (data / name).read_text(encoding="utf-8")
    assert old in text, old
    (data / name).write_text(text.replace(old, new, 1), encoding="utf-8")
    monkeypatch.setattr(provenance, "DATA", str(data))
    # nothing is cleared: the data read before, and a spec loaded with it, are kept by the files'
    # identities, which the folder's copy does not share
    r = run("validate", os.path.join(SPECS, spec))
    assert r.code == 3 and f"{data / name}:{line}:{col}: error: {what}" in r.err, r.err[-1500:]


@pytest.mark.parametrize("old, new, line, col, what", [
    # a pin whose number is a list, or pins that are a number: a TypeError ended the spec's load
    ("pins: [[211, 224], [217, 217]]", "pins: [[211, [224]], [217, 217]]", 13, 18, "expected an integer"),
    ("pins: [[211, 224], [217, 217]]", "pins: 5", 13, 11, "expected a list of 1..64 [first, last] line ranges"),
    # a pin past the lines copied was taken: a reading citing it passed with nothing of it held
    ("pins: [[211, 224], [217, 217]]", "pins: [[211, 224], [217, 217], [900, 990]]", 13, 36,
     "expected lines within the 211-224 copied, first to last, found 900-990"),
    ("pins: [[211, 224], [217, 217]]", "pins: [[224, 211]]", 13, 12, "expected lines within the 211-224 copied, first to last, found 224-211"),
])
def test_a_malformed_excerpt_is_its_own_located_error(tmp_path, monkeypatch, run, old, new, line, col, what):
    """checker/references/excerpts.yaml, read by the spec loader for a container reading's
    read_from, is held to its form: a malformed one is refused at its line and column (exit 3)."""
    from checker.spec import provenance

    path = tmp_path / "excerpts.yaml"
    with open(provenance.EXCERPTS, encoding="utf-8") as fh:
        text = fh.read()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")
    monkeypatch.setattr(provenance, "EXCERPTS", str(path))
    r = run("validate", os.path.join(SPECS, "ldmatrix.m8n16.yaml"))
    assert r.code == 3 and f"{path}:{line}:{col}: error: {what}" in r.err, r.err[-1500:]


def _mosaic_entries(arrays: list) -> str:
    """A data file of mosaic-tiled entries of the accumulator's tiling, one per array (None: none given)."""
    head, _, entry = MOSAIC.partition("entries:\n")
    out = []
    for k, array in enumerate(arrays):
        e = entry.replace("name: X.acc", f"name: X.acc{k}")
        out.append(e.replace("      array: [64, 8]\n", f"      array: {list(array)}\n" if array else ""))
    return head + "entries:\n" + "".join(out)


def test_the_cells_a_files_mosaic_entries_ask_for_are_bounded(tmp_path):
    """A 200-byte mosaic-tiled entry may ask for a 65536-cell array, 0.4 s to tile: 512 of them took
    minutes. One file's entries may ask for 2^20 cells in all; the entry past that is refused where
    it asks, and an entry without an array counts as the largest fragment it could be compared with."""
    path = tmp_path / "x.yaml"
    path.write_text(_mosaic_entries([(256, 256)] * 16))
    assert len(load.load_file(str(path))) == 16
    path.write_text(_mosaic_entries([(256, 256)] * 17))
    with pytest.raises(SpecError) as exc:
        load.load_file(str(path))
    assert exc.value.span.line == 6 + 12 * 16 + 10, str(exc.value)  # the 17th entry (12 lines each) at its array
    assert "at most 1048576 cells in all" in str(exc.value) and "found 1114112" in str(exc.value)
    path.write_text(_mosaic_entries([(256, 256)] * 16 + [None]))
    with pytest.raises(SpecError, match=r"counts 16384\), found 1064960"):
        load.load_file(str(path))


def test_each_published_layout_is_transcribed_once():
    """No layout of one upstream file at one commit is entered twice for one fragment: not under one
    name at the same line (or anchor), and not by two data files (one file's entries may share a layout where
    upstream's traits do: SM80_16x8_Row is the CLayout of several SM80 traits, each at its own line;
    a type alias at its own line, `using CLayout_64x8 = CLayout_64xN<8>;`, is the template's instance,
    named in the note of that entry). cutlass-mma_traits_sm90_gmma.yaml had entered the three
    ALayout_64xK of cute-gmma.yaml at the same lines and five CLayout_64x* aliases of its
    CLayout_64xN<N> again, and `checker conformance` proved each twice."""
    import json as _json

    at_line, by_file, twice = {}, {}, []
    for r in load.load_all():
        layout = (r.repo, r.commit, r.path, r.spec, r.fragment_id, r.encoding.kind,
                  _json.dumps(r.encoding.fields, sort_keys=True, default=repr))
        here = f"{r.file}:{r.span.line} {r.name}"
        for seen, key in ((at_line, layout + (r.line, r.anchor, r.name)), (by_file, layout)):
            first = seen.setdefault(key, (r.file, here))
            if first[0] != r.file or (seen is at_line and first[1] != here):
                twice.append((first[1], here))
    assert twice == []


def test_a_data_file_edited_in_a_long_lived_process_is_read_again(tmp_path, monkeypatch):
    """Through the Python API, in one process: a data file edited between two proofs (or two loads)
    is read again and its edit seen; one not edited is not read again; within one proof each file
    is read once. The data had been read once per process: a reading proved equal to an entry that
    was since changed stayed PROVED, and a spec whose source's line was since moved still loaded."""
    import collections
    import shutil

    import checker
    import checker.recording as recording
    from checker.references import load as ref_load
    from checker.spec import provenance, refdata

    data = tmp_path / "data"
    shutil.copytree(provenance.DATA, data)
    monkeypatch.setattr(provenance, "DATA", str(data))
    monkeypatch.setattr(ref_load, "DATA", str(data))
    reads, read_regular = collections.Counter(), recording.read_regular

    def counted(path, *args, **kwargs):
        if os.path.dirname(os.path.abspath(path)) == str(data):
            reads[os.path.basename(path)] += 1
        return read_regular(path, *args, **kwargs)

    monkeypatch.setattr(recording, "read_regular", counted)
    # files kept from before, the bound near: the proof's own files are not the ones let go (all
    # were cleared at the bound, and a proof's file read twice after a suite's earlier tests)
    monkeypatch.setattr(refdata, "_BYTES", {f"/kept/before/{k}.yaml": ((0, k), b"") for k in range(refdata.MAX_HELD - 4)})
    subject = "r.x1 read from CuTe SM75_U32x1_LDSM_N"

    def verdict() -> str:
        reads.clear()
        proof = checker.prove(os.path.join(SPECS, "ldmatrix.m8n8.yaml"))
        assert max(reads.values(), default=1) == 1, reads  # no file read twice in one proof
        return next(r.verdict.value for r in proof.results if r.property == "provenance" and r.subject == subject)

    assert verdict() == "PROVED"
    copy = data / "cute-copy.yaml"
    text = copy.read_text(encoding="utf-8")
    assert text.count('registers: "(32,32):(32,1)"') >= 1
    copy.write_text(text.replace('registers: "(32,32):(32,1)"', 'registers: "(32,32):(1,32)"', 1), encoding="utf-8")
    assert verdict() == "REFUTED" and set(reads) == {"cute-copy.yaml"}  # only the file edited is read again
    copy.write_text(text, encoding="utf-8")
    assert verdict() == "PROVED"
    assert verdict() == "PROVED" and not reads  # nothing edited: nothing read
    # a load: the wgmma reading's source is held to the data as it is now, not as first read
    wgmma = os.path.join(SPECS, "m64nNk16.yaml")
    checker.load(wgmma)
    gmma = data / "cute-gmma.yaml"
    gmma.write_text(gmma.read_text(encoding="utf-8").replace("    line: 451\n", "    line: 452\n", 1), encoding="utf-8")
    with pytest.raises(checker.SpecError, match="has no entry at line 451"):
        checker.load(wgmma)
