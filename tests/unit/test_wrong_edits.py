"""Plausible wrong edits of the catalogue that the gate once let through, crashed on, or pointed
at a line the edit did not touch. Each is made in a copy of specs/ and must be refused, with a
located message, at the edited line."""
import pytest

from conftest import DOCUMENT, SPECS


@pytest.mark.parametrize("spec, old, new, said", [
    # m16n8k16 C.float's .f32 row: the document's Elements cell is empty, the erratum gives the list;
    # a list out of order was a worker's AttributeError (no cell to point at), exit 1 and no location
    ("m16n8k16.yaml", "          - types: [f32]\n            fragment: A vector expression containing four .f32 registers "
     "containing four .f32 elements from the matrix C (or D).\n            registers: {count: 4, kind: f32}\n"
     "            elements: null\n            errata:\n            - printed: \"\"\n              value: c0, c1, c2, c3",
     "          - types: [f32]\n            fragment: A vector expression containing four .f32 registers "
     "containing four .f32 elements from the matrix C (or D).\n            registers: {count: 4, kind: f32}\n"
     "            elements: null\n            errata:\n            - printed: \"\"\n              value: c0, c2, c1, c3",
     "C.float fragment-shape refuted: table row 2: element 2 is 'c2' where 'c1' is expected"),
    # the same through an erratum that replaces a printed list: pointed at the printed list, not the value read
    ("m16n8k32.yaml", "value: b0, b1, b2, b3, b4, b5, b6, b7", "value: b0, b1, b2, b3, b5, b4, b6, b7",
     "B.sp.f16 fragment-shape refuted: table row 1: element 5 is 'b5' where 'b4' is expected"),
])
def test_a_wrong_element_list_read_from_an_erratum_is_refuted_at_the_erratum(copy, run, spec, old, new, said):
    path, line, _ = copy(spec, old, new)
    line += old.count("\n")  # the value's line: the last line of the edited text
    r = run("prove", path, "--jobs", "1")
    assert r.code == 1, r.out + r.err
    assert "worker process failed" not in r.err and "Traceback" not in r.err
    located = [x for x in (r.out + r.err).splitlines() if said in x]
    assert located and located[0].startswith(f"{path}:{line}:"), located or r.out + r.err


def test_a_wgmma_list_from_a_merged_cell_that_does_not_continue_is_refuted_not_a_crash(copy, run):
    # the .f32 D row reads the merged cell above it (spanned_by): a list edited there is pointed at
    old = "spanned_by: \"d0, d1, d2, d3, …, dX, dY, dZ, dW  where `X = N/2  -  4`"
    path, line, _ = copy("m64nNk16.yaml", old, old.replace("N/2  -  4", "N/2  -  2"))
    r = run("prove", path, "--jobs", "1")
    assert r.code in (1, 3), r.out + r.err  # refuted, or the scope's spec error: never a crash
    assert "worker process failed" not in r.err and "Traceback" not in r.err
    assert f"{path}:{line}:20: error: D.float[N=8]: the elements named after the ellipsis (d2, d1, d2, d3) do not " \
           "continue d0, d1, d2, d3" in r.out + r.err


def test_a_same_as_multiplicand_of_other_types_is_refused(copy, run):
    # 9.7.14.6.2.5 (sparse .u8/.s8): "... the same as in case of Matrix Fragments for mma.m16n8k32",
    # whose B is given for .s4/.u4 (B.i4) and for .u8/.s8 (B.i8); the .s4/.u4 one passed every check
    path, line, col = copy("m16n8k32.yaml", "fragments: [m16n8k32/B.i8, m16n8k32/C.s32]",
                           "fragments: [m16n8k32/B.i4, m16n8k32/C.s32]")
    r = run("validate", path)
    assert r.code == 3, r.out + r.err
    assert f"{path}:{line}:{col + len('fragments: [')}: error: m16n8k32/B.i4: the section's A has .s8, .u8, but B.i4 " \
           "has no row of .s8, .u8" in r.err


def test_formulas_swapped_between_two_fragments_of_one_table_are_not_verbatim(copy, run):
    # m8n8k4's A table serves .row and .col; each formula block stands under its own figure (46, 47).
    # Swapped, both were still "a code block after the table", and prove passed too once the two
    # declared-refuted relations' witnesses were moved as their messages suggest
    row = ("          row =            %laneid % 4          if %laneid < 16\n"
           "                          (%laneid % 4) + 4     otherwise\n\n"
           "          col =            i                    for ai where i = {0,..,3}\n")
    col = ("          row =        i % 4            for ai  where i = {0,..,3}   if %laneid < 16\n"
           "                      (i % 4) + 4       for ai  where i = {0,..,3}   otherwise\n\n"
           "          col =        %laneid % 4\n")
    path, line, _ = copy("m8n8k4.yaml", row + "      - id: A.f16.col", "@@ROW@@\n      - id: A.f16.col")
    copy("m8n8k4.yaml", col + "      - id: B.f16.row", row + "      - id: B.f16.row")
    copy("m8n8k4.yaml", "@@ROW@@\n", col)
    r = run("verbatim", path, "--document", DOCUMENT)
    assert r.code == 1, r.out + r.err
    assert f"{path}:{line}:11: error: A.f16.row formula: in section 9.7.14.5.1, but not under its own table and " \
           "figure" in r.out + r.err


def test_diff_points_a_failed_composition_at_the_edited_layout(copy, run, tmp_path):
    # ldmatrix.m8n16's r.x2 edited: the composition with m16n8k32's B.i8 fails; the diff pointed at
    # m16n8k32.yaml (not edited), as `prove specs/` does, where `prove` of the edited file points at the edit
    old = "            row = (%laneid >> 2) + 8 * (i >> 2)\n            col = (%laneid % 4) * 4 + (i & 0x3)\n" \
          "          read_from:\n            - \"CuTe SM100_SU4_DU8x16_x2_LDSM_N\""
    path, line, _ = copy("ldmatrix.m8n16.yaml", old, old.replace("8 * (i >> 2)", "8 * ((i >> 2) ^ 1)", 1))
    r = run("diff", str(SPECS) + "/ldmatrix.m8n16.yaml", path)
    assert r.code == 1, r.out + r.err
    assert f"{path}:{line}:19: does not hold" in r.out, r.out
