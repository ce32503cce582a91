"""CuTe's Tensor Memory copy atoms (reference kind cute-tmem) and the tcgen05 specs they are read
into: every atom decided by z3 and by the enumeration, which agree; a changed stride, a register
whose bits are not one column or not at a column, refuted at the smallest (lane, i) by both; the
array evaluation the same as the atom's bit-by-bit rule; malformed atoms refused at file:line:col;
a reading that is not its atoms refuted by the provenance theorem."""
import dataclasses
import json
import os
import shutil

import pytest

from checker.compare import compare_layout, cute, tmem
from checker.errors import CheckerError, SourceSpan
from checker.families import FAMILIES
from checker.references import conformance, load
from checker.results import PROVED, REFUTED
from checker.source import plain
from conftest import SPECS

ATOMS = [r for r in load.load_all() if r.encoding.kind == "cute-tmem"]
SHAPES = ("tcgen05.32x32b", "tcgen05.16x64b", "tcgen05.16x128b", "tcgen05.16x256b", "tcgen05.16x32bx2")


@pytest.fixture(scope="module")
def specs():
    from checker.commands.common import spec_files

    return conformance.Specs(spec_files([SPECS]))


def atom(name: str, **changes):
    a = next(r for r in ATOMS if r.name == name).encoding.fields["atom"]
    for k in ("registers", "val_id"):
        if isinstance(changes.get(k), str):
            changes[k] = cute.parse(plain(changes[k], SourceSpan("mutant", 1, 1)))
    return dataclasses.replace(a, **changes)


def fragment(specs, name):
    return specs.fragment(next(r for r in ATOMS if r.name == name))[1]


def test_every_num_of_every_shape_has_its_load_and_store_atom():
    # CuTe's .num per shape: x1..x128, except .16x128b (x64) and .16x256b (x32), its registers 2 and 4 per .num
    tops = {"32x32b": 128, "16x64b": 128, "16x128b": 64, "16x256b": 32, "16x32bx2": 128}
    want = {(f"tcgen05.{s}", f"r.x{1 << k}") for s, top in tops.items() for k in range(top.bit_length())}
    for op in ("LOAD", "STORE"):
        assert {(r.spec, r.fragment) for r in ATOMS if f"_{op}_" in r.name} == want
    assert len(ATOMS) == 74 and all(r.commit.startswith("7107b0553") for r in ATOMS)


@pytest.mark.parametrize("name", ["SM100_TMEM_STORE_16dp64b8x", "SM100_TMEM_STORE_32dp32b128x"])
def test_a_store_atom_is_its_load_atom(name):
    """Upstream defines each STORE atom's layouts as its LOAD atom's: the entries state one candidate."""
    assert atom(name) == atom(name.replace("STORE", "LOAD"))


@pytest.mark.parametrize("ref", [r for r in ATOMS if r.fragment in ("r.x1", "r.x4", "r.x32")],
                         ids=lambda r: r.name)
def test_every_atom_is_decided_by_both_engines(specs, ref):
    v = conformance.judge(ref, specs)
    assert v.verdict == "equal" and v.as_expected, (v.verdict, v.reason)
    assert v.comparison.points == 32 * ref.encoding.fields["atom"].elements
    assert all("unsat" in p and "enumeration agrees" in p for p in v.comparison.proofs), v.comparison.proofs


def test_the_tile_is_lanes_by_columns_num_along_the_columns():
    fam = FAMILIES["tcgen05"]
    assert fam.dims("tcgen05.32x32b", {}) == {"m": 32, "n": 1}
    assert fam.dims("tcgen05.16x256b", {}) == {"m": 16, "n": 8}
    assert fam.dims("tcgen05.16x32bx2", {}) == {"m": 16, "n": 2}
    from checker.spec.load import load_spec

    f = next(x for x in load_spec(f"{SPECS}/tcgen05.16x128b.yaml").fragments() if x.id == "r.x8")
    assert (f.rows, f.cols, f.matrices) == (16, 32, 8)


def test_the_table_is_the_bit_by_bit_rule():
    """The enumeration's table (_table, which evaluates only a register's first bit where both
    layouts carry its 32 bits whole) says what `missing` says one bit at a time: on every shipped
    LOAD atom (the STORE atoms are the same layouts), and on atoms whose registers are not one
    column, not at a column, past the ValID, or whose ValID does not keep 32 bits whole (each
    point then asked bit by bit)."""
    cases = [r.encoding.fields["atom"] for r in ATOMS if "_LOAD_" in r.name]
    assert len(cases) == 37
    cases += [atom("SM100_TMEM_LOAD_32dp32b2x", registers="(32,64):(64,2)"),  # bit k of a register at 2k
              atom("SM100_TMEM_LOAD_32dp32b2x", registers="(32,64):(65,1)"),  # lane 1 one bit past a column
              atom("SM100_TMEM_LOAD_32dp32b2x", registers="(32,64):(128,1)"),  # half the lanes past the ValID
              atom("SM100_TMEM_LOAD_32dp32b2x", val_id="((2,32),32):((32,1),2097152)"),  # bits not whole
              atom("SM100_TMEM_LOAD_32dp32b2x", registers="(32,(32,2)):(64,(1,32))",  # whole, other modes
                   val_id="((32,2),32):((1,32),2097152)")]
    assert [tmem._whole(a.registers.value) and tmem._whole(a.val_id.thread + a.val_id.value)
            for a in cases[-5:]] == [False, True, True, False, True]
    for a in cases:
        for t in range(a.threads):
            for i in range(a.elements):
                why = a.missing(t, i)
                assert a.holds(t, i) == (why == ""), (t, i, why)
                if not why:
                    assert a.cells([(t, i)]) == [a.cell(t, i)]
    assert not atom("SM100_TMEM_LOAD_32dp32b2x", registers="(32,64):(64,2)").holds(0, 0)


@pytest.mark.parametrize("name, changes, point, spec, candidate, why", [
    # lanes 0..15 in the 16x64b pairing without its +8: lane 1 at TMEM lane 0, column 0? no: column 1
    ("SM100_TMEM_LOAD_16dp64b1x", {"registers": "((2,2,8),32):((32,512,64),1)"}, (1, 0), (8, 0), (0, 1),
     "logical bit 32"),
    # the .16x256b x2 atom's second chunk half a column too far (stride 272 for 256)
    ("SM100_TMEM_LOAD_16dp256b2x", {"registers": "((4,8),(64,2,2)):((64,512),(1,4096,272))"}, (0, 4), (0, 8),
     None, "not at a column"),
    # a register's bits two addresses apart: no register at all, found by z3 without the whole-register proof
    ("SM100_TMEM_LOAD_32dp32b1x", {"registers": "(32,32):(32,2)"}, (0, 0), (0, 0), None, "not one column"),
    # the ValID's lanes two apart where they are one: lane 1 at TMEM lane 2
    ("SM100_TMEM_LOAD_32dp32b1x", {"val_id": "(32,32):(1,4194304)"}, (1, 0), (1, 0), (2, 0), "lane 2"),
    # the half-warp offset of .16x32bx2 .x2 as 1 (not .num): lanes 16.. overlap columns of lanes 0..
    ("SM100_TMEM_LOAD_16dp32b2x", {"registers": "((16,2),64):((128,32),1)"}, (16, 0), (0, 2), (0, 1),
     "logical bit 32"),
])
def test_a_changed_atom_is_refuted_at_the_smallest_point(specs, name, changes, point, spec, candidate, why):
    result = compare_layout(fragment(specs, name), atom(name, **changes))
    d = result.difference
    assert not result.equal and (d.thread, d.i) == point and d.spec == spec and d.candidate == candidate, d
    assert why in (d.detail or ""), d.detail
    assert all("enumeration agrees" in p for p in result.proofs)
    assert compare_layout(fragment(specs, name), atom(name)).equal


def test_z3_alone_decides_an_atom_whose_registers_are_not_whole(specs):
    from checker.smt import compare as smt
    from checker.spec.reading import materialize

    frag = fragment(specs, "SM100_TMEM_LOAD_32dp32b2x")
    reading = materialize(frag)
    good, bad = atom("SM100_TMEM_LOAD_32dp32b2x"), atom("SM100_TMEM_LOAD_32dp32b2x", registers="(32,64):(64,2)")
    assert smt._tmem_whole("test.tmem.good", good.form(), None) == "unsat"
    assert smt._tmem_whole("test.tmem.bad", bad.form(), None) == "sat"
    assert smt.differ("test.tmem.good", reading, tuple(range(32)), 2, good.form(), (32, 2)).verdict == PROVED
    got = smt.differ("test.tmem.bad", reading, tuple(range(32)), 2, bad.form(), (32, 2))
    assert got.verdict == REFUTED and (got.witness["t"], got.witness["i"], got.witness["candidate"]) == (0, 0, None)


def test_the_engines_cross_check_each_other(specs, monkeypatch):
    """A wrong array evaluation (lane 5's cells moved one column) is caught: z3 reads the layouts on
    its own, so the two disagree and no verdict is given."""
    ref = next(r for r in ATOMS if r.name == "SM100_TMEM_LOAD_16dp128b1x")
    real = tmem.TmemAtom._table.func

    def wrong(self):
        out = real(self)
        out[5] = [(r, c + 1) for r, c in out[5]]
        return out

    monkeypatch.setattr(tmem.TmemAtom, "_table", property(wrong))
    with pytest.raises(CheckerError, match="disagree"):
        conformance.judge(ref, specs)


TMEM = """library: CuTe
repo: NVIDIA/cutlass
commit: 7107b05535f8977f5ecb9d01ee203205b1fd9bc4
path: include/cute/atom/copy_traits_sm100.hpp
entries:
  - name: SM100_TMEM_LOAD_32dp32b1x
    line: 1458
    fragment: {spec: tcgen05.32x32b, id: r.x1}
    status: current
    encoding:
      kind: cute-tmem
      registers: "(32,32):(32,1)"
      val_id: "(32,32):(1,2097152)"
"""


@pytest.mark.parametrize("old, new, line, col, what", [
    ('registers: "(32,32):(32,1)"', 'registers: "(32,48):(48,1)"', 12, 18, "not a whole number of 32-bit registers"),
    ('val_id: "(32,32):(1,2097152)"', 'val_id: "(32,256):(1,2097152)"', 13, 15, "past TMEM's 128 lanes"),
    ('val_id: "(32,32):(1,2097152)"', 'val_id: "(32,32):(1,DP_b)"', 13, 27, "val_id: expected an integer or '('"),
    ("      val_id:", "      element_bits: 32\n      val_id:", 13, 7, "unknown field 'element_bits'"),
    ('      val_id: "(32,32):(1,2097152)"\n', "", 11, 7, "missing field 'val_id'"),
])
def test_a_malformed_atom_is_refused_at_its_field(refused, old, new, line, col, what):
    assert TMEM.count(old) == 1
    refused(TMEM.replace(old, new), line, col, what)


def test_the_shipped_specs_prove_with_their_atoms(run):
    r = run("prove", *(f"{SPECS}/{s}.yaml" for s in SHAPES), "--no-cache")
    assert r.code == 0, r.out + r.err
    assert "5 specs, 37 fragments: 185 proved, 0 refuted" in r.out and "theorems: 74 proved" in r.out
    assert "(the same layouts as CuTe SM100_TMEM_LOAD_16dp256b32x, decided once)" in r.out


def test_a_reading_that_is_not_its_atoms_is_refuted(run, copy):
    """The 16x64b reading with the row of odd lanes not 8 below (lane 1 at TMEM lane 0, column 1,
    where CuTe puts it at lane 8, column 0): every property still holds, the provenance theorem
    refutes both atoms at lane 1."""
    path, line, _ = copy("tcgen05.16x64b.yaml", "            row = (%laneid >> 2) + 8 * (%laneid & 0x1)\n"
                      "            col = ((%laneid >> 1) & 0x1) + 2 * i\n          read_from:\n"
                      '            - "CuTe SM100_TMEM_LOAD_16dp64b1x"',
                      "            row = %laneid >> 1\n            col = (%laneid & 0x1) + 2 * i\n          read_from:\n"
                      '            - "CuTe SM100_TMEM_LOAD_16dp64b1x"')
    r = run("prove", path, "--no-cache")
    assert r.code == 1, r.out + r.err
    assert "r.x1: proved fragment-shape, defined, in-range, injective, covers" in r.out
    for op in ("LOAD", "STORE"):
        assert (f"{path}:{line}:13: error: provenance r.x1 read from CuTe SM100_TMEM_{op}_16dp64b1x refuted: r.x1 is "
                f"not CuTe SM100_TMEM_{op}_16dp64b1x") in r.out, r.out
    assert ("it differs at 30 of 32 points; the first: thread 1 r0: the spec puts it at r[0][1], CuTe "
            "SM100_TMEM_LOAD_16dp64b1x gives r[8][0] (logical bit 512, TMEM address 16777216: lane 8") in r.out


def test_a_layout_must_name_both_atoms(run, copy):
    path, line, col = copy("tcgen05.32x32b.yaml", '            - "CuTe SM100_TMEM_STORE_32dp32b4x"\n', "")
    r = run("prove", path, "--no-cache")
    assert r.code == 3 and "SM100_TMEM_STORE_32dp32b4x too, which read_from does not name" in r.out + r.err


def test_a_form_of_another_num_is_refused(run, copy):
    path, line, col = copy("tcgen05.16x256b.yaml", "          - tcgen05.st.sync.aligned.16x256b.x2.b32",
                           "          - tcgen05.st.sync.aligned.16x256b.x4.b32")
    r = run("prove", path, "--no-cache")
    assert r.code == 3 and f"{path}:{line}:{col + 12}: error: tcgen05.st.sync.aligned.16x256b.x4.b32 is not a form " \
                           "of layout r.x2" in r.out + r.err, r.out + r.err


# .ci/run sets CHECKER_REQUIRE_CUDA: its machines have ptxas, so there a missing one fails, not skips
HAVE_PTXAS = bool(os.environ.get("CHECKER_REQUIRE_CUDA") or shutil.which("ptxas")
                  or os.path.exists("/usr/local/cuda/bin/ptxas"))
needs_ptxas = pytest.mark.skipif(not HAVE_PTXAS, reason="needs NVIDIA's ptxas (CUDA toolkit)")


def _sm100a():
    from checker.probe.assemble import known_targets, ptxas

    if "sm_100a" not in known_targets(ptxas()):
        if os.environ.get("CHECKER_REQUIRE_CUDA"):
            pytest.fail("CHECKER_REQUIRE_CUDA is set, but this ptxas cannot target sm_100a")
        pytest.skip("this ptxas cannot target sm_100a")


@needs_ptxas
def test_every_form_assembles_for_sm_100a_and_is_skipped_without_tensor_memory(run):
    _sm100a()
    r = run("probe", *(f"{SPECS}/{s}.yaml" for s in SHAPES), "--compile-only", "--arch", "sm_100a,sm_90",
            "--format", "json")
    rows = json.loads(r.out)
    assert r.code == 0 and len(rows) == 2 * 74, r.out + r.err
    assert {x["result"] for x in rows if x["arch"] == "sm_100a"} == {"assembled"}
    assert {(x["result"], x["message"].split(" (")[0]) for x in rows if x["arch"] == "sm_90"} == {
        ("skipped", "tcgen05 needs a target with Tensor Memory")}
    assert {x["instruction"] for x in rows} >= {"tcgen05.ld.sync.aligned.16x32bx2.x128.b32",
                                                "tcgen05.st.sync.aligned.16x256b.x32.b32"}


@needs_ptxas
def test_a_shape_ptxas_does_not_take_is_rejected_at_its_layout(run, tmp_path):
    """The family's shape pattern reads `.32x64b` too (a tcgen05.cp shape, not ld / st): a spec of it
    passes the loader, and ptxas rejects its forms at the layout's line."""
    _sm100a()
    text = open(f"{SPECS}/tcgen05.32x32b.yaml", encoding="utf-8").read().replace("32x32b", "32x64b")
    head, layouts = text.split("    layouts:\n")
    first = layouts.split("      - id: r.x2")[0].replace("{count: 1, per_register: 1}", "{count: 2, per_register: 1}")
    first = first.replace("elements: r0\n", "elements: r0, r1\n").split("          read_from:")[0] + "          read_from: []\n"
    path = tmp_path / "tcgen05.32x64b.yaml"
    path.write_text(head + "    layouts:\n" + first, encoding="utf-8")
    line = (head + "    layouts:\n").count("\n") + 1
    r = run("probe", str(path), "--compile-only", "--arch", "sm_100a")
    assert r.code == 1, r.out + r.err
    assert f"{path}:{line}:9: error: ptxas (sm_100a) rejects tcgen05.ld.sync.aligned.32x64b.x1.b32" in r.out, r.out
    assert "sm_100a: 0 assembled, 2 rejected, 0 skipped" in r.out


def test_the_kernel_moves_the_spec_registers_and_the_half_offset_is_num():
    from checker.probe.tcgen05_ptx import forms_of, generate
    from checker.spec.load import load_spec

    path = f"{SPECS}/tcgen05.16x32bx2.yaml"
    forms = {f.instruction: f for f in forms_of(path, load_spec(path))}
    ld = generate(forms["tcgen05.ld.sync.aligned.16x32bx2.x4.b32"])
    st = generate(forms["tcgen05.st.sync.aligned.16x32bx2.x4.b32"])
    assert "tcgen05.ld.sync.aligned.16x32bx2.x4.b32 {%r0, %r1, %r2, %r3}, [%taddr], 4;" in ld and "mov.b32" not in ld
    assert "tcgen05.st.sync.aligned.16x32bx2.x4.b32 [%taddr], 4, {%r0, %r1, %r2, %r3};" in st
    assert st.count("mov.b32 %r") == 4 and "tcgen05.wait::st" in st and "tcgen05.wait::ld" in ld
