"""Wrong edits of fields the verbatim check does not cover, which the gate once let through
(benchmarks/field_mutants.py found them): each is made in a copy of specs/ and must be refused
at the edited line, by validate (exit 3) or prove (exit 1, the property refuted)."""
import shutil

import pytest

from conftest import SPECS


@pytest.fixture
def copy(tmp_path):
    folder = tmp_path / "specs"
    shutil.copytree(SPECS, folder)

    def edit(name, old, new):
        path = folder / name
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, old
        path.write_text(text.replace(old, new), encoding="utf-8")
        before = text[:text.index(old)]
        # the line and column the edit starts at
        return str(path), before.count("\n") + 1, len(before) - before.rfind("\n")
    return edit


def test_per_register_left_out_of_a_packed_row_is_refuted(copy, run):
    # m16n8k8 B.f16: one .f16x2 register holds two .f16; without per_register the row reads as one
    path, line, _ = copy("m16n8k8.yaml", "        kind: f16x2\n        per_register: 2\n      elements: b0, b1",
                         "        kind: f16x2\n      elements: b0, b1")
    r = run("prove", path)
    assert r.code == 1
    assert f"{path}:{line}:15: error: B.f16 fragment-shape refuted: table row 1: a .f16x2 register holds 2 .f16 " \
           "elements, but the row gives no per_register (which reads as 1)" in r.out + r.err


def test_same_as_naming_a_fragment_of_another_shape_is_refused(copy, run):
    path, line, col = copy("m16n8k8.yaml", "m16n8k8/C.float]", "m16n8k64/C.s32]")
    r = run("validate", path)
    assert r.code == 3
    assert f"{path}:{line}:{col}: error: m16n8k64/C.s32: the sentence names the fragments of m16n8k8, not of m16n8k64" \
        in r.err


def test_a_parameter_run_cut_short_is_refused(copy, run):
    # m64nNk256's D rows give N = 8..32 by 8 and 48..256 by 16: the second run stopping at 255 drops 256
    path, line, _ = copy("m64nNk256.yaml", "{from: 48, to: 256, step: 16}", "{from: 48, to: 255, step: 16}")
    r = run("validate", path)
    assert r.code == 3
    assert f"{path}:{line}:5: error: D.s32's table gives N = 256, which is not a value of the shape's parameter" in r.err


@pytest.mark.parametrize("old, new, value", [("to: 256", "to: 512", 264), ("step: 8", "step: 16", 16),
                                             ("from: 8", "from: 7", 7)])
def test_a_sparse_wgmma_parameter_unlike_its_same_as_targets_is_refused(copy, run, old, new, value):
    # the sparse spec's only parametric claim is its D "the same as" the dense one at every N
    given = "parameters: {N: {from: 8, to: 256, step: 8}}"
    path, line, _ = copy("m64nNk16.sp.yaml", given, given.replace(old, new))
    r = run("validate", path)
    assert r.code == 3
    assert f"{path}:{line}:13: error: N = {value} is a value of" in r.err
    r = run("prove", path)
    assert r.code == 3 and f"{path}:{line}:13: error: same-as 9.7.15.6.2.2 D spec error: N = {value}" in r.out + r.err


@pytest.mark.parametrize("old, new, why", [
    ("- ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8\n", "- ldmatrix.sync.aligned.m8n8.x2.shared.b16\n",
     "its shape is not m16n16"),
    ("- ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8\n", "- ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8\n",
     "it loads 2 matrices, the layout 1"),
    ("- ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b4x16_p64\n",
     "- ldmatrix.sync.aligned.m16n16.x1.trans.shared.b16\n", "its type is .b16, the layout's .b8"),
])
def test_a_form_of_another_layout_is_refused(copy, run, old, new, why):
    path, line, col = copy("ldmatrix.m16n16.yaml", old, new)
    r = run("validate", path)
    assert r.code == 3
    assert f"{path}:{line}:{col + 2}: error: {new[2:-1]} is not a form of layout r.x1.trans: {why}" in r.err


def test_a_form_given_to_two_layouts_is_refused(copy, run):
    # ldmatrix.m8n8 r.x1's form given the .trans of r.x1.trans: two layouts claim one instruction
    path, line, col = copy("ldmatrix.m8n8.yaml", "- ldmatrix.sync.aligned.m8n8.x1.shared.b16\n",
                           "- ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16\n")
    r = run("validate", path)
    assert r.code == 3
    # said at the second of the two, naming the edited line
    assert (f"error: ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 is not a form of layout r.x1.trans: it is a form "
            f"of layout r.x1 (line {line}) too" in r.err)


def test_packed_bytes_must_be_what_sixteen_values_take(copy, run):
    path, line, col = copy("ldmatrix.m16n16.yaml", "packed_bytes: 8\n", "packed_bytes: 9\n")
    r = run("validate", path)
    assert r.code == 3
    assert f"{path}:{line}:{col + 14}: error: 16 4-bit values packed take 8 bytes, not 9" in r.err


def test_two_container_theorems_of_one_claim_are_refused(copy, run):
    # the .e3m2 theorem's type slipped to .e2m3: its id and statement still say .e3m2 is proved
    path, line, col = copy("ldmatrix.m16n16.yaml", "      format: b6x16_p32\n      type: e3m2\n",
                           "      format: b6x16_p32\n      type: e2m3\n")
    r = run("validate", path)
    assert r.code == 3
    # said at the second of the two, naming the edited line
    assert (f"error: theorem 'e2m3/b6x16_p32' claims what 'e3m2/b6x16_p32' (line {line + 1}) does (.e2m3 loaded "
            "by .b6x16_p32, shift 0)" in r.err)


def test_the_catalogue_passes_the_new_checks(run):
    assert run("validate", SPECS).code == 0


@pytest.mark.parametrize("name, old, new, col, says", [
    ("m64nNk16.yaml", "        line: 451\n", "        line: 450\n", 15, "cute-gmma has no entry at line 450"),
    ("m64nNk16.sp.yaml", 'commit: "7107b05535f8977f5ecb9d01ee203205b1fd9bc4"', 'commit: "cec06d116c05f0d52adfceee3d3b730fdbcb0ce5"',
     17, "no reference data file transcribes commit 'cec06d116c05f0d52adfceee3d3b730fdbcb0ce5'"),
    ("m64nNk256.yaml", 'reference: "cute-gmma"', 'reference: "cute-gmma-sparse"', 20,
     "cute-gmma-sparse does not transcribe include/cute/atom/mma_traits_sm90_gmma.hpp"),
    ("m64nNk256.yaml", "      - library: JAX\n", "      - library: CuTe\n", 18,
     "no reference data file transcribes library 'CuTe' with this source's path and repo and commit (JAX)"),
])
def test_a_reading_source_that_no_reference_data_transcribes_is_refused(copy, run, name, old, new, col, says):
    path, line, _ = copy(name, old, new)
    r = run("validate", path)
    assert r.code == 3
    assert f"{path}:{line}:{col}: error: {says}" in r.err, r.err


@pytest.mark.parametrize("old, new, says", [
    ('- "CuTe SM75_U16x2_LDSM_T"', '- "CuTe SM100_U8x16_STSM_T"', "'CuTe SM100_U8x16_STSM_T' is no entry of the "
     "reference data for ldmatrix.m8n8 r.x1.trans"),
    ('- "CuTe SM75_U16x2_LDSM_T"\n', "", "the reference data encodes ldmatrix.m8n8 r.x1.trans as CuTe "
     "SM75_U16x2_LDSM_T too, which read_from does not name"),
])
def test_a_read_from_name_that_is_not_this_layouts_is_refused(copy, run, old, new, says):
    path, line, _ = copy("ldmatrix.m8n8.yaml", old, new)
    r = run("validate", path)
    assert r.code == 3
    # a dropped name is said at `read_from:`, the line above the one dropped
    assert f"{path}:{line if new else line - 1}:" in r.err and says in r.err, r.err


def test_a_seed_that_does_not_hold_its_section_is_refused(copy, run):
    from conftest import DOCUMENT

    path, line, col = copy("m16n8k8.yaml", "seed: ptx-isa/9.7.14.5.7-m16n8k8.md", "seed: ptx-isa/9.7.14.5.5-m8n8k128.md")
    r = run("verbatim", path, "--document", DOCUMENT)
    assert r.code == 1
    assert (f"{path}:{line}:{col + 6}: error: seed ptx-isa/9.7.14.5.5-m8n8k128.md does not hold section 9.7.14.5.7 "
            "(it holds 9.7.14.5.5)") in r.out
    assert r.out.rstrip().endswith("; 1 seed not holding their section")


@pytest.mark.parametrize("old, new", [
    ("    for: {j: [0, 1], i: [0, 3]}\n    left:  {fragment: m16n8k16/A.f16, element: \"4 * j + i\"}",
     "    for: {j: [1, 1], i: [0, 3]}\n    left:  {fragment: m16n8k16/A.f16, element: \"4 * j + i\"}"),
    ("    for: {j: [0, 1], i: [0, 3]}\n    left:  {fragment: m16n8k16/A.f16, element: \"4 * j + i\"}",
     "    for: {j: [0, 1], i: [0, 2]}\n    left:  {fragment: m16n8k16/A.f16, element: \"4 * j + i\"}"),
])
def test_a_relation_cut_short_is_refuted_at_its_range(copy, run, old, new):
    # c-to-a-reuse claims all of A.f16 (a(4j+i) = c_i of tile j); a narrowed range proves a part
    path, line, _ = copy("relations.yaml", old, new)
    r = run("prove", path)
    assert r.code == 1
    assert (f"{path}:{line}:10: error: relation c-to-a-reuse/m16n8k16 refuted: cannot hold as stated: no point "
            "reads m16n8k16/A.f16 lane 0 element ") in r.out + r.err


def test_a_composition_cut_short_is_refuted_at_its_range(copy, run):
    # stmatrix.x2 of m16n8k16's C stores the layout whole; i from 1 leaves its e0 unplaced
    path, line, _ = copy("stmatrix.m8n8.yaml", "    fragment: m16n8k16/C.float\n    for: {i: [0, 3]}\n",
                         "    fragment: m16n8k16/C.float\n    for: {i: [1, 3]}\n")
    r = run("prove", path)
    assert r.code == 1
    assert (f"{path}:{line + 1}:10: error: composition stmatrix.x2/m16n8k16/C.f16 refuted: cannot hold as stated: "
            "no point reads stmatrix.m8n8/r.x2 lane 0 element 0") in r.out + r.err, r.out


def test_an_extrapolated_reading_that_names_sources_is_refused(copy, run):
    # m64nNk8's A.tf32 is read from CuTe's ALayout_64x8: extrapolated says no source encodes it
    path, line, col = copy("m64nNk8.yaml", "      figure: Figure 150\n      standing: agreed\n",
                           "      figure: Figure 150\n      standing: extrapolated\n")
    r = run("validate", path)
    assert r.code == 3
    assert f"{path}:{line + 1}:17: error: an extrapolated reading is one no source encodes; this one names 1" in r.err


def test_a_same_as_operand_left_without_a_fragment_is_refused(copy, run):
    path, line, col = copy("m16n8k16.yaml", "      fragments: [m16n8k16/B.f16, m16n8k16/C.float]",
                           "      fragments: [m16n8k16/B.f16]")
    r = run("validate", path)
    assert r.code == 3
    assert f"{path}:{line}:{col + 18}: error: operand C is given for B, C, but no fragment of C is named" in r.err


def test_a_table_row_given_twice_is_refused(copy, run):
    # m16n8k8 C.float's .f16 row copied under itself
    row = ("    - types: [f16]\n      fragment: A vector expression containing two `.f16x2` registers, with each "
           "register containing two `.f16` elements from the matrix C (or D).\n      registers:\n        count: 2\n"
           "        kind: f16x2\n        per_register: 2\n      elements: c0, c1, c2, c3\n")
    path, line, col = copy("m16n8k8.yaml", row, row + row)
    r = run("validate", path)
    assert r.code == 3, r.err
    assert f"{path}:{line + 7}:7: error: C.float: table row 2 repeats the types of a row above (f16)" in r.err, r.err


def test_a_header_erratum_that_breaks_only_words_is_refused(copy, run):
    # m16n8k32 B.sp.f16's .atype header fails fragment-shape; breaks: [wording] made the erratum
    # an erratum of words, which no words' theorem reads for a header: it was confirmed by nothing
    path, line, col = copy("m16n8k32.yaml", "      value: .btype\n      breaks: [fragment-shape]\n",
                           "      value: .btype\n      breaks: [wording]\n")
    r = run("validate", path)
    assert r.code == 3
    assert f"{path}:{line + 1}:15: error: no words' theorem (elements-listed, register-words, types-named, wording) " \
           "reads a header" in r.err
