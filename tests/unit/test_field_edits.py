"""Wrong edits of fields the verbatim check does not cover, which the gate once let through
(benchmarks/field_mutants.py found them): each is made in a copy of specs/ and must be refused
at the edited line, by validate (exit 3) or prove (exit 1, the property refuted)."""
import os
import shutil

import pytest

from conftest import ROOT, SPECS


def refused(run, path) -> str:
    """What validate says of an edited spec it refuses (exit 3)."""
    r = run("validate", path)
    assert r.code == 3, r.out + r.err
    return r.err


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
    err = refused(run, path)
    assert f"{path}:{line}:{col}: error: m16n8k64/C.s32: the sentence names the fragments of m16n8k8, not of m16n8k64" \
        in err


def test_a_parameter_run_cut_short_is_refused(copy, run):
    # m64nNk256's D rows give N = 8..32 by 8 and 48..256 by 16: the second run stopping at 240 drops 256
    path, line, _ = copy("m64nNk256.yaml", "{from: 48, to: 256, step: 16}", "{from: 48, to: 240, step: 16}")
    err = refused(run, path)
    assert f"{path}:{line}:5: error: D.s32's table gives N = 256, which is not a value of the shape's parameter" in err


def test_a_parameter_run_given_twice_is_refused(copy, run):
    run_ = "  - {from: 48, to: 256, step: 16}\n"
    path, line, _ = copy("m64nNk256.yaml", run_, run_ + run_)
    assert f"{path}:{line + 1}:5: error: N = 48 is a value of an earlier run too" in refused(run, path)


@pytest.mark.parametrize("spec, old, new, line, col, said", [
    ("m64nNk256.yaml", "{from: 48, to: 256, step: 16}", "{from: 48, to: 255, step: 16}", 8, 20,
     "N from 48 by 16 does not reach 255: its last value is 240 (to: 240)"),
    ("m64nNk16.yaml", "{from: 8, to: 256, step: 8}", "{from: 8, to: 257, step: 8}", 5, 31,
     "N from 8 by 8 does not reach 257: its last value is 256 (to: 256)")])
def test_a_parameter_run_that_does_not_reach_its_end_is_refused(copy, run, spec, old, new, line, col, said):
    # to: 257 by 8 from 8 gave the values 8..256, and said another: it passed every check
    path, _, _ = copy(spec, old, new)
    assert f"{path}:{line}:{col}: error: {said}" in refused(run, path)


@pytest.mark.parametrize("old, new, value", [("to: 256", "to: 512", 264), ("to: 256, step: 8", "to: 248, step: 16", 16),
                                             ("from: 8, to: 256", "from: 7, to: 255", 7)])
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
    err = refused(run, path)
    assert f"{path}:{line}:{col + 2}: error: {new[2:-1]} is not a form of layout r.x1.trans: {why}" in err


def test_a_form_given_to_two_layouts_is_refused(copy, run):
    # ldmatrix.m8n8 r.x1's form given the .trans of r.x1.trans: two layouts claim one instruction
    path, line, col = copy("ldmatrix.m8n8.yaml", "- ldmatrix.sync.aligned.m8n8.x1.shared.b16\n",
                           "- ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16\n")
    err = refused(run, path)
    # said at the second of the two, naming the edited line
    assert (f"error: ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 is not a form of layout r.x1.trans: it is a form "
            f"of layout r.x1 (line {line}) too" in err)


def test_packed_bytes_must_be_what_sixteen_values_take(copy, run):
    path, line, col = copy("ldmatrix.m16n16.yaml", "packed_bytes: 8\n", "packed_bytes: 9\n")
    err = refused(run, path)
    assert f"{path}:{line}:{col + 14}: error: 16 4-bit values packed take 8 bytes, not 9" in err


def test_two_container_theorems_of_one_claim_are_refused(copy, run):
    # the .e3m2 theorem's type slipped to .e2m3: its id and statement still say .e3m2 is proved
    path, line, col = copy("ldmatrix.m16n16.yaml", "      format: b6x16_p32\n      type: e3m2\n",
                           "      format: b6x16_p32\n      type: e2m3\n")
    err = refused(run, path)
    # said at the second of the two, naming the edited line
    assert (f"error: theorem 'e2m3/b6x16_p32' claims what 'e3m2/b6x16_p32' (line {line + 1}) does (.e2m3 loaded "
            "by .b6x16_p32, shift 0)" in err)


def test_the_catalogue_passes_the_new_checks(run):
    assert run("validate", SPECS).code == 0


@pytest.mark.parametrize("name, old, new, col, says", [
    ("m64nNk16.yaml", "        line: 451\n", "        line: 450\n", 15, "cute-gmma has no entry at line 450"),
    ("m64nNk16.sp.yaml", 'commit: "7107b05535f8977f5ecb9d01ee203205b1fd9bc4"', 'commit: "cec06d116c05f0d52adfceee3d3b730fdbcb0ce5"',
     17, "no reference data file transcribes commit 'cec06d116c05f0d52adfceee3d3b730fdbcb0ce5'"),
    ("m64nNk8.yaml", 'reference: "cute-gmma"\n      - library: JAX', 'reference: "cute-gmma-sparse"\n      - library: JAX', 20,
     "cute-gmma-sparse does not transcribe include/cute/atom/mma_traits_sm90_gmma.hpp"),
    ("m64nNk8.yaml", "      - library: JAX\n", "      - library: CuTe\n", 18,
     "no reference data file transcribes library 'CuTe' with this source's path and repo and commit (JAX)"),
])
def test_a_reading_source_that_no_reference_data_transcribes_is_refused(copy, run, name, old, new, col, says):
    path, line, _ = copy(name, old, new)
    err = refused(run, path)
    assert f"{path}:{line}:{col}: error: {says}" in err, err


@pytest.mark.parametrize("name, old, new, says", [
    # another layout's name at this line (the field survived 33 of 3,500 wrong edits before)
    ("m64nNk16.yaml", 'name: "SM90::GMMA::ALayout_64x16"', 'name: "SM90::GMMA::ALayout_64x32"',
     "the entry at line 451 of include/cute/atom/mma_traits_sm90_gmma.hpp is ALayout_64x16, which this source's "
     "name SM90::GMMA::ALayout_64x32 does not end with"),
    # JAX's A layout named where the 32-bit accumulators' entry is
    ("m64nNk8.yaml", 'name: "WGMMA_LAYOUT_ACC_32BIT (32-bit', 'name: "WGMMA_LAYOUT (32-bit',
     "the entry at line 850 of jax/experimental/mosaic/gpu/fragmented_array.py is WGMMA_LAYOUT_ACC_32BIT, "
     "which this source's name WGMMA_LAYOUT does not end with"),
    # a sparse trait of another instruction
    ("m64nNk16.sp.yaml", "GMMA_64x8x16_F32TF32TF32_RS_TN>::ALayout", "GMMA_64x8x32_F16F16F16_RS>::ALayout",
     "is SPARSE::GMMA_64x8x16_F32TF32TF32_RS_TN::ALayout, which this source's name"),
])
def test_a_reading_source_named_as_another_entry_is_refused(copy, run, name, old, new, says):
    path, line, col = copy(name, old, new)
    err = refused(run, path)
    assert f"{path}:{line}:" in err and says in err, err


@pytest.mark.parametrize("old, new, says", [
    ('- "CuTe SM75_U16x2_LDSM_T"', '- "CuTe SM100_U8x16_STSM_T"', "'CuTe SM100_U8x16_STSM_T' is no entry of the "
     "reference data for ldmatrix.m8n8 r.x1.trans"),
    ('- "CuTe SM75_U16x2_LDSM_T"\n', "", "the reference data encodes ldmatrix.m8n8 r.x1.trans as CuTe "
     "SM75_U16x2_LDSM_T too, which read_from does not name"),
])
def test_a_read_from_name_that_is_not_this_layouts_is_refused(copy, run, old, new, says):
    path, line, _ = copy("ldmatrix.m8n8.yaml", old, new)
    err = refused(run, path)
    # a dropped name is said at `read_from:`, the line above the one dropped
    assert f"{path}:{line if new else line - 1}:" in err and says in err, err


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
    err = refused(run, path)
    assert f"{path}:{line + 1}:17: error: an extrapolated reading is one no source encodes; this one names 1" in err


def test_a_same_as_operand_left_without_a_fragment_is_refused(copy, run):
    path, line, col = copy("m16n8k16.yaml", "      fragments: [m16n8k16/B.f16, m16n8k16/C.float]",
                           "      fragments: [m16n8k16/B.f16]")
    err = refused(run, path)
    assert f"{path}:{line}:{col + 18}: error: operand C is given for B, C, but no fragment of C is named" in err


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
    err = refused(run, path)
    assert f"{path}:{line + 1}:15: error: no words' theorem (elements-listed, register-words, types-named, wording) " \
           "reads a header" in err


@pytest.mark.parametrize("new", ["value: each containing one element", "value: each containing one `.tf32` element,",
                                 "value: ...,"])
def test_a_words_erratum_whose_value_drops_the_claim_is_refuted(copy, run, new):
    # m16n8k16 sparse B.tf32's cell says "four .tf32 elements" a .b32 register; the reading says one.
    # A value that says no count of typed elements per register would leave register-words nothing
    # to hold to the table (5 wrong edits passed so before)
    path, line, col = copy("m16n8k16.yaml", "value: each containing one `.tf32` element\n", new + "\n")
    r = run("prove", path)
    if new.endswith("element,"):  # still says one .tf32 element a register: a harmless edit passes
        assert r.code == 0, r.out + r.err
        return
    assert r.code == 1
    assert "erratum's value says nothing where the printed text claims the elements of each register " \
           "(register-words)" in r.out + r.err, r.out


@pytest.mark.parametrize("old, new, kind, t", [
    ("    - types: [s32]\n      fragment: \"A vector expression containing N/2 number of `.s32`",
     "    - types: [f32]\n      fragment: \"A vector expression containing N/2 number of `.s32`", "s32", "f32"),
    ("    - types: [f32]\n      fragment: \"A vector expression containing N/2 number of `.f32`",
     "    - types: [s32]\n      fragment: \"A vector expression containing N/2 number of `.f32`", "f32", "s32"),
])
def test_a_typed_register_holding_another_type_is_refuted(copy, run, old, new, kind, t):
    # wgmma m64nNk32 D: the .s32 and .f32 rows' types swapped passed before (both 32 bits, and the
    # cell names its registers' kind, not a type of elements)
    path, line, _ = copy("m64nNk32.yaml", old, new)
    r = run("prove", path)
    assert r.code == 1
    assert f"{path}:{line}:14: error: D.s32.float" in r.out + r.err, r.out + r.err
    assert f"register-words refuted: the Fragment cell of D.s32.float (table row {1 if kind == 's32' else 2}) has " \
           f".{kind} registers, which hold .{kind} elements, where the table row gives types: .{t}" in r.out + r.err, r.out


@pytest.mark.parametrize("old, new, col, says", [
    ("      fragment: A.sp.tf32\n      row: 1\n", "      fragment: A.sp.tf32\n      row: 2\n", 12,
     "A.sp.tf32's table has 1 row, not a row 2"),
    ("      fragment: A.sp.tf32\n      row: 1\n", "      fragment: A.sp.f16\n      row: 1\n", 17,
     "A.sp.f16 is no fragment of section 9.7.14.6.2.3"),
])
def test_a_difference_pointing_at_no_row_is_refused(copy, run, old, new, col, says):
    # 9.2 prints sparse A's row 1 otherwise; verbatim seeks its cell in the whole section, so a row
    # number past the table passed (4 wrong edits)
    path, line, _ = copy("m16n8k16.yaml", old, new)
    err = refused(run, path)
    assert f"{path}:{line + (1 if 'row 2' in says else 0)}:{col}: error: {says}" in err, err


def test_a_difference_printed_alike_is_refused(copy, run):
    cell = ("A vector expression containing four `.b32` registers, with each register containing one non-zero "
            "`.tf32` element out of 2 consecutive elements from matrix A.")
    path, line, col = copy("m16n8k16.yaml", cell + ' Mapping of the non-zero elements is as described in Sparse '
                           'matrix storage."', cell + '"')
    err = refused(run, path)
    assert f"{path}:{line}:{col - 1}: error: A.sp.tf32 row 1 is printed so in the transcription too: no difference" \
        in err, err


@pytest.mark.parametrize("old, new, says", [
    # an empty Elements cell filled: nothing printed contradicts anything (4 edits deleted the kind)
    ("        breaks: [elements-listed]\n        kind: judgment\n", "        breaks: [elements-listed]\n",
     "an erratum that breaks elements-listed is kind: judgment, not contradiction (the default)"),
])
def test_an_erratum_of_the_wrong_kind_is_refused(copy, run, old, new, says):
    path, line, col = copy("m16n8k8.yaml", old, new)
    err = refused(run, path)
    assert f"{path}:" in err and says in err, err


def test_a_refuted_layout_erratum_is_a_contradiction(copy, run):
    # m16n8k128 B's table headed .atype fails fragment-shape: it contradicts the table, not a choice
    path, line, col = copy("m16n8k128.yaml", "      value: .btype\n      breaks: [fragment-shape]\n",
                           "      value: .btype\n      breaks: [fragment-shape]\n      kind: judgment\n")
    line += 2
    err = refused(run, path)
    assert f"{path}:{line}:13: error: an erratum that breaks fragment-shape is kind: contradiction, not " \
           "judgment" in err, err


def test_a_types_erratum_whose_value_names_no_type_is_refuted(copy, run):
    # the mma.sp "same as" sentence prints `.b16` for `.bf16`: a value naming no type at all would
    # leave types-named nothing to hold to the fragments the sentence names
    path, line, col = copy("m16n8k16.yaml", 'value: "`.bf16`"', 'value: "16-bit"')
    r = run("prove", path)
    assert r.code == 1
    assert "erratum's value says nothing where the printed text claims types (types-named)" in r.out + r.err, r.out


def test_a_difference_pointing_at_another_row_is_refuted(copy, run):
    # m16n8k128's sparse A has two rows (.u4/.s4 and .e2m1); 9.2's cell for row 1 said to be row 2
    path, line, _ = copy("m16n8k128.yaml", "    fragment: A.sp.i4\n    row: 1\n", "    fragment: A.sp.i4\n    row: 2\n")
    r = run("prove", path)
    assert r.code == 1
    assert (f"{path}:{line + 1}:10: error: A.sp.i4 types-named refuted: another version's Fragment cell of A.sp.i4 "
            "(table row 2) names .s4, .u4, where the table row gives types: .e2m1") in r.out + r.err, r.out


def test_a_title_erratum_whose_value_names_no_type_is_refuted(copy, run):
    # 9.7.14.5.9's title says "integer type" where its tables have .e4m3/.e5m2 too: a value that
    # names no type (another field's text pasted) left types-named nothing to check
    path, line, col = copy("m16n8k16.yaml", "value: with .u8 / .s8 / .e4m3 / .e5m2 type\n",
                           "value: (threadID_in_group * 32) + (i & 0x1F)\n")
    r = run("prove", path)
    assert r.code == 1
    assert "erratum's value says nothing where the printed text claims types (types-named)" in r.out + r.err, r.out


def test_a_same_as_fragment_named_twice_is_refused(copy, run):
    path, line, col = copy("m16n8k128.yaml", "    fragments: [m16n8k64/C.s32]\n",
                           "    fragments: [m16n8k64/C.s32, m16n8k64/C.s32]\n")
    err = refused(run, path)
    assert f"{path}:{line}:{col + 32}: error: m16n8k64/C.s32 is named twice" in err, err


def test_a_fragment_id_naming_another_operand_is_refused(copy, run):
    # a figure-only B renamed A.sp.tf32: `where --fragment A...` would answer with matrix B
    path, line, col = copy("m16n8k128.yaml", "  - id: B.sp.i4\n", "  - id: A.sp.tf32\n")
    err = refused(run, path)
    assert f"{path}:{line}:9: error: A.sp.tf32 is a fragment of matrix B: its id starts with B." in err, err


def test_a_source_two_data_files_transcribe_must_name_its_reference(copy, run):
    # MLIR's MMAUtils.cpp at one commit is transcribed by two data files (its ldmatrix lowering and
    # its mma.sync operand maps): a source of that file without reference: is held to neither
    source = ('      - library: CuTe\n        repo: "NVIDIA/cutlass"\n        commit: "7107b05535f8977f5ecb9d01ee203205b1fd9bc4"\n'
              '        path: "include/cute/atom/mma_traits_sm90_gmma.hpp"\n        line: 451\n'
              '        name: "SM90::GMMA::ALayout_64x16"\n        reference: "cute-gmma"\n')
    mlir = ('      - library: MLIR\n        repo: "llvm/llvm-project"\n        commit: "030ce753d0a1ff3c4e7bdd46c0c60f5a5b07374f"\n'
            '        path: "mlir/lib/Dialect/NVGPU/Utils/MMAUtils.cpp"\n        line: 451\n'
            '        name: "SM90::GMMA::ALayout_64x16"\n')
    path, line, col = copy("m64nNk16.yaml", source, mlir)
    err = refused(run, path)
    assert (f"{path}:{line}:18: error: mlir-nvgpu_ldmatrix and mlir-nvgpu_mmautils both transcribe "
            "mlir/lib/Dialect/NVGPU/Utils/MMAUtils.cpp at 030ce753d0a1: name the one read from with reference:") in err, err


def test_a_source_named_twice_is_refused(copy, run):
    source = ('      - library: CuTe\n        repo: "NVIDIA/cutlass"\n        commit: "7107b05535f8977f5ecb9d01ee203205b1fd9bc4"\n'
              '        path: "include/cute/atom/mma_traits_sm90_gmma.hpp"\n        line: 451\n'
              '        name: "SM90::GMMA::ALayout_64x16"\n        reference: "cute-gmma"\n')
    path, line, col = copy("m64nNk16.yaml", source, source + source)
    err = refused(run, path)
    assert (f"{path}:{line + 11}:15: error: CuTe include/cute/atom/mma_traits_sm90_gmma.hpp line 451 is named twice"
            in err), err


@pytest.mark.parametrize("old, new, col, says", [
    ("          lines: [211, 224]\n", "          lines: [211, 225]\n", 18,
     "checker/references/excerpts.yaml cites lines 211-224, 217-217 of include/cute/atom/mma_traits_sm120.hpp, not 211-225"),
    ("          lines: [57, 58]\n", "          lines: [56, 57]\n", 18,
     "checker/references/excerpts.yaml cites lines 57-58 of include/cutlass/gemm/collective/builders/sm120_common.inl, not 56-57"),
    ("        - repo: NVIDIA/cutlass\n          commit: 7107b05535f8977f5ecb9d01ee203205b1fd9bc4\n"
     "          path: include/cutlass/gemm", "        - repo: jax-ml/jax\n          commit: "
     "7107b05535f8977f5ecb9d01ee203205b1fd9bc4\n          path: include/cutlass/gemm", 17,
     "checker/references/excerpts.yaml holds no lines of repo 'jax-ml/jax' with this source's path"),
])
def test_a_container_reading_pinned_where_no_excerpt_is_refused(copy, run, old, new, col, says):
    # container readings' read_from: a line off by one, another repository (12 + 2 wrong edits passed)
    path, line, _ = copy("ldmatrix.m16n16.yaml", old, new)
    err = refused(run, path)
    assert f"{path}:{line}:{col}: error: {says}" in err, err


def test_every_excerpt_holds_the_lines_the_specs_quote():
    """The copies are what the readings quote: each `says` of a container reading that is a quote
    (not a paraphrase) is in its excerpt, comment markers and line breaks aside."""
    import re

    import yaml

    held = yaml.safe_load(open(os.path.join(ROOT, "checker", "references", "excerpts.yaml"), encoding="utf-8"))["excerpts"]
    quoted = 0
    for name in ("ldmatrix.m8n16.yaml", "ldmatrix.m16n16.yaml"):
        spec = yaml.safe_load(open(os.path.join(SPECS, name), encoding="utf-8"))
        for load in spec["containers"]["loads"]:
            for s in load["read_from"]:
                x = next(x for x in held if (x["repo"], x["commit"], x["path"]) == (s["repo"], s["commit"], s["path"]))
                lines = x["text"].splitlines()[s["lines"][0] - x["first"]:s["lines"][1] - x["first"] + 1]
                text = " ".join(re.sub(r"^\s*(//|#)\s?", "", ln) for ln in lines)
                parts = s["says"].split(" ... ")
                if all(p in text for p in parts):
                    quoted += 1
                assert s["lines"] in x["pins"]
    assert quoted == 6  # the two specs' three quotes; the sm120_common.inl line is read, not quoted
    for x in held:  # each cited range is inside the copy
        assert all(x["first"] <= lo <= hi < x["first"] + len(x["text"].splitlines()) for lo, hi in x["pins"])


@pytest.mark.parametrize("old, new, col", [("      pairwise: true\n", "      pairwise: false\n", 17),
                                           ("      pairwise: true\n", "", 16)])
def test_pairwise_that_the_sentence_does_not_say_is_refused(copy, run, old, new, col):
    # m16n8k128's sparse A: "matrix A is pair-wise structured sparse at a granularity of 4:8". The
    # reference model takes the metadata's units from pairwise; flipped or dropped, every check passed
    path, line, _ = copy("m16n8k128.yaml", old, new)
    err = refused(run, path)
    at = line if new else line + 1  # dropped: said at the sentence, the line after it
    assert f"{path}:{at}:{col}: error: pairwise is false, but the sentence says \"pair-wise\"" in err, err


def test_same_as_naming_a_fragment_of_another_section_of_the_shape_is_refused(copy, run):
    # "... the same as in case of Matrix Fragments for mma.m16n8k16 with floating point type.":
    # m16n8k16's integer C has the same shape, and only the shape was checked
    path, line, col = copy("m16n8k16.yaml", "fragments: [m16n8k16/C.float]\n", "fragments: [m16n8k16/C.int]\n")
    err = refused(run, path)
    assert (f"{path}:{line}:{col + len('fragments: [')}: error: m16n8k16/C.int: the sentence names the section "
            "'Matrix Fragments for mma.m16n8k16 with floating point type' of m16n8k16, which has no C.int") in err, err
    r = run("prove", path, "--no-cache")
    assert r.code == 3 and f"{path}:{line}:{col + len('fragments: [')}: error: same-as" in r.out, r.out
    assert "m16n8k16/C.int: the sentence names the section" in r.out


def test_computation_lanes_the_sentence_does_not_give_are_refused(copy, run):
    # m8n8k4 .f16: computations 1 and 2 trading their high groups still tile the warp, and every
    # proof passed; only a crosscheck of dumps noticed, at the fragments' lines
    path, line, col = copy("m8n8k4.yaml", "        lanes: [[0, 3], [16, 19]]\n", "        lanes: [[0, 3], [20, 23]]\n")
    err = refused(run, path)
    assert (f"{path}:{line}:16: error: lanes [[0, 3], [20, 23]] are not the ranges the printed sentence gives "
            "(0-3, 16-19)") in err, err


def test_captions_swapped_with_their_figures_are_refused(tmp_path, run):
    """A.f16 and B.f16 of m16n8k16 with their figures and captions swapped: verbatim finds each
    caption in the section and prove has nothing to refute, so the swap passed every check."""
    folder = tmp_path / "specs"
    shutil.copytree(SPECS, folder)
    path = folder / "m16n8k16.yaml"
    text = path.read_text(encoding="utf-8")
    a = "        figures: [Figure 79]\n        caption: MMA .m16n8k16 fragment layout for matrix A with .f16 / .bf16 type.\n"
    b = "        figures: [Figure 81]\n        caption: MMA .m16n8k16 fragment layout for matrix B with .f16 / .bf16 type.\n"
    assert text.count(a) == 1 and text.count(b) == 1
    path.write_text(text.replace(a, "\0").replace(b, a).replace("\0", b), encoding="utf-8")
    line = text[:text.index(a)].count("\n") + 2
    err = refused(run, str(path))
    assert f"{path}:{line}:18: error: A.f16 is a fragment of A, but its caption draws matrix B" in err, err
    # and a caption that names no matrix at all
    path.write_text(text.replace(a, a.replace("for matrix A with", "with")), encoding="utf-8")
    err = refused(run, str(path))
    assert f"{path}:{line}:18: error: A.f16 is a fragment of A, but its caption draws no matrix A, B, C/D or D" in err


@pytest.mark.parametrize("name, old, new, said", [
    ("m16n8k128.yaml", "granularity: '4:8'", "granularity: '1:2'", "granularity 1:2 is not the one the sentence states (4:8)"),
    ("m16n8k32.yaml", "      granularity: '2:4'\n      storage: 9.7.14.6.1\n      printed: When",
     "      granularity: '4:8'\n      storage: 9.7.14.6.1\n      printed: When",
     "granularity 4:8 is not the one the sentence states (2:4)")])
def test_a_granularity_the_sentence_does_not_state_is_refused(copy, run, name, old, new, said):
    # fragment-shape checks the ratio (8 of 16 is 4:8 and 1:2 alike); every check passed, while
    # `where` read the metadata in chunks of 2 and left columns to no register
    path, line, col = copy(name, old, new)
    err = refused(run, path)
    assert f"{path}:{line}:{col + len('granularity: ') + (6 if old.startswith(' ') else 0)}: error: {said}" in err, err


@pytest.mark.parametrize("old, new, said", [
    ("        layout: row\n        header: .atype\n", "        layout: col\n        header: .atype\n",
     "A.f16.row: layout col, but its caption draws a row-major matrix"),
    ("        layout: row\n        header: .atype\n", "        header: .atype\n",
     "A.f16.row: layout not given, but its caption draws a row-major matrix")])
def test_a_layout_its_caption_does_not_draw_is_refused(copy, run, old, new, said):
    # m8n8k4's A.f16.row (Figure 46, "row-major matrix A"): the variants simulate and probe run pick
    # A by its layout, and flipped or dropped it passed every check
    path, line, col = copy("m8n8k4.yaml", old, new)
    err = refused(run, path)
    at = f"{line}:17" if "layout" in new else f"{line + 7}:18"  # dropped: said at the caption
    assert f"{path}:{at}: error: {said}" in err, err


def test_a_wording_erratum_reading_anything_but_its_text_mended_is_refuted(copy, run):
    # m16n8k16's C caption prints "matrix matrix"; its value, the reading, was free: ".btype" passed
    path, line, _ = copy("m16n8k16.yaml", '            value: "matrix"\n', '            value: ".btype"\n')
    r = run("prove", path)
    assert r.code == 1
    assert f"{path}:{line - 2}:13: error: C.float erratum refuted: an erratum of wording reads its printed text " \
           "mended, 'matrix', not '.btype'" in r.out + r.err, r.out + r.err


def test_a_definition_named_lane_is_refused(tmp_path, run):
    """`lane` is where both engines keep %laneid: m16n8k16 with groupID renamed `lane`
    (`lane = %laneid >> 2`) validated, and every later %laneid read groupID (eval of lane 1 a0
    gave col 0, not 2; prove refuted injective and covers; compare called the right CuTe layout
    different)."""
    folder = tmp_path / "specs"
    shutil.copytree(SPECS, folder)
    path = folder / "m16n8k16.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("groupID", "lane"), encoding="utf-8")
    line = text[:text.index("groupID = %laneid >> 2")].count("\n") + 1
    err = refused(run, str(path))
    assert f"{path}:{line}:11: error: cannot define 'lane': a reserved name" in err, err
