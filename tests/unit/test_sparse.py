"""Sparse mma.sp A (9.7.14.6): the range notation, the compressed layout, how the metadata selects
columns, `checker where` in A's own coordinates, and the figure-only B tables."""
import itertools
import json
import os
import re

import pytest

from conftest import DOCUMENT, SPECS

from checker.formula.parser import parse_block
from checker.semantics import sparse
from checker.spec.load import load_spec
from checker.source import SourceText

SPARSE = [(shape, fr) for shape in ("m16n8k8", "m16n8k16", "m16n8k32", "m16n8k64", "m16n8k128")
          for fr in load_spec(os.path.join(SPECS, f"{shape}.yaml")).fragments() if fr.sparsity is not None]


def _src(text):
    return SourceText(text, "t", tuple((1, k + 1) for k in range(len(text) + 1)))


def test_eight_sparse_fragments_with_the_storage_granularities():
    got = {(shape, fr.id): (fr.sparsity.nonzero, fr.sparsity.chunk, fr.sparsity.pairwise, fr.rows, fr.cols)
           for shape, fr in SPARSE}
    assert got == {
        ("m16n8k8", "A.sp.tf32"): (1, 2, False, 16, 4), ("m16n8k16", "A.sp.f16"): (2, 4, False, 16, 8),
        ("m16n8k16", "A.sp.tf32"): (1, 2, False, 16, 8), ("m16n8k32", "A.sp.f16"): (2, 4, False, 16, 16),
        ("m16n8k32", "A.sp.i8"): (2, 4, False, 16, 16), ("m16n8k64", "A.sp.i8"): (2, 4, False, 16, 32),
        ("m16n8k64", "A.sp.i4"): (4, 8, True, 16, 32), ("m16n8k128", "A.sp.i4"): (4, 8, True, 16, 64)}


def test_range_notation_parses_with_comments_and_capital_for():
    block = parse_block(_src("groupID = %laneid >> 2\nrow = groupID\n"
                             "col = [firstcol ... lastcol]  // a comment\n      // another\n\n"
                             "Where\nfirstcol = groupID * 4   For ai where i <  4\n"
                             "           groupID * 4 + 16   for ai where i >= 4\nlastcol = firstcol + 3\n"))
    cr = block.column_range
    assert (cr.first.name, cr.last.name) == ("firstcol", "lastcol")
    assert [(d.target, len(d.pieces)) for d in cr.where] == [("firstcol", 2), ("lastcol", 1)]
    assert cr.where[0].pieces[0].elem.where is not None  # `For ai where i < 4`, capital F


def _choices(g, increasing: bool):
    """Every metadata choice for one range: each chunk's indices increasing (`::ordered_metadata`),
    or merely distinct (plain mma.sp, wgmma.mma_async.sp)."""
    pick = itertools.combinations if increasing else itertools.permutations
    per_chunk = list(pick(range(g.units), g.picked))
    for choice in itertools.product(per_chunk, repeat=g.out_of // g.chunk):
        yield tuple(x for c in choice for x in c)


@pytest.mark.parametrize("increasing", [True, False], ids=["ordered", "distinct"])
@pytest.mark.parametrize("shape,fragment", SPARSE, ids=[f"{s}-{f.id}" for s, f in SPARSE])
def test_metadata_places_a_register_on_distinct_columns_of_its_range(shape, fragment, increasing):
    """For every metadata choice, ordered or merely distinct, the register's elements land on
    distinct columns of its range, `nonzero` to a chunk (two-wide units aligned where pair-wise),
    and `candidates` names exactly the elements and conditions that put one on a given column
    (those it marks increasing where the choice is ordered)."""
    g = sparse.geometry(fragment)
    choices = list(_choices(g, increasing))
    assert choices and all(sparse.distinct(g, c) for c in choices)
    assert all(sparse.ordered(g, c) for c in choices) == (increasing or g.picked == 1)
    for indices in choices:
        cols = [sparse.column(g, 0, p, indices) for p in range(g.per_register)]
        assert len(set(cols)) == g.per_register and all(0 <= c < g.out_of for c in cols)
        for c0 in range(0, g.out_of, g.chunk):
            assert sum(c0 <= c < c0 + g.chunk for c in cols) == g.nonzero
        if g.pairwise:
            assert all(cols[p] % 2 == 0 and cols[p + 1] == cols[p] + 1 for p in range(0, g.per_register, 2))
        for offset in range(g.out_of):
            said = {p for p, c, q, index, up in sparse.candidates(g, offset)
                    if (up or not increasing) and indices[c * g.picked + q] == index}
            assert said == {p for p in range(g.per_register) if cols[p] == offset}, (indices, offset)


def test_candidates_can_be_refuted():
    g = sparse.Geometry(2, 4, False, 2, 4)
    # position 0 is only ever the first of increasing indices; of distinct ones, the second too
    assert [(p, up) for p, _, _, _, up in sparse.candidates(g, 0)] == [(0, True), (1, False)]
    assert [(p, up) for p, _, _, _, up in sparse.candidates(g, 3)] == [(0, False), (1, True)]
    assert not sparse.ordered(g, (2, 1)) and not sparse.ordered(g, (1, 1)) and sparse.ordered(g, (0, 3))
    assert sparse.distinct(g, (2, 1)) and not sparse.distinct(g, (1, 1)) and not sparse.distinct(g, (0, 4))


def test_which_types_let_a_chunk_s_indices_go_down():
    """9.7.14.6.1 states the increasing values for mma.sp itself for the .kind::f8f6f4 types and
    .e2m1, "For mma.sp::ordered_metadata" only for .f16/.bf16, .u8/.s8, .u4/.s4; 9.7.15.6.1 asks
    only distinct indices of every wgmma type."""
    storage = " ".join(open(os.path.join(DOCUMENT, "ptx-isa", "9.7.14.6.1-sparse-matrix-storage.md"),
                            encoding="utf-8").read().split())
    fp8 = storage[storage.index("When matrices A and B have `.e4m3`"):]
    assert fp8.index("metadata. `0b0100`, `0b1000`") < fp8.index("Figure 116")  # unqualified
    types = ("s8", "u8", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1")
    assert sparse.unordered_types("mma", types) == ("s8", "u8")
    assert sparse.unordered_types("wgmma.sp", ("e4m3", "e5m2")) == ("e4m3", "e5m2")
    assert sparse.unordered_types("mma", ("e2m1",)) == ()


def test_ordered_metadata_values_are_the_increasing_index_pairs():
    """9.7.14.6.1: for ::ordered_metadata the meaningful 4-bit values of a 2:4 chunk are exactly
    the two 2-bit indices low < high; the invalid ones for plain .sp are low == high."""
    storage = os.path.join(DOCUMENT, "ptx-isa", "9.7.14.6.1-sparse-matrix-storage.md")
    text = " ".join(open(storage, encoding="utf-8").read().split())
    said = re.search(r"For `mma.sp::ordered_metadata`, ((?:`0b[01]{4}`, )+`0b[01]{4}`) are the meaningful", text)
    meaningful = {int(v, 2) for v in re.findall(r"0b([01]{4})", said.group(1))}
    g = sparse.Geometry(2, 4, False, 2, 4)
    assert meaningful == {hi << 2 | lo for lo in range(4) for hi in range(4) if sparse.ordered(g, (lo, hi))}
    invalid = re.search(r"Values ((?:`0b[01]{4}`, )+`0b[01]{4}`) are invalid", text)
    assert {int(v, 2) for v in re.findall(r"0b([01]{4})", invalid.group(1))} == {x << 2 | x for x in range(4)}


def test_where_answers_in_a_s_own_coordinates(run):
    r = run("where", os.path.join(SPECS, "m16n8k32.yaml"), "--fragment", "A.sp.f16", "--row", "9", "--col", "13",
            "--format", "json")
    w = json.loads(r.out)
    assert r.code == 0 and w["unique"] and w["sparse"]["k"] == 32
    assert [(h["lane"], h["element"], h["range"], h["metadata"]["index"], h["metadata"]["value"])
            for h in w["holders"]] == [(7, "a2", [12, 15], 0, 1), (7, "a3", [12, 15], 1, 1)]
    text = run("where", os.path.join(SPECS, "m16n8k32.yaml"), "--fragment", "A.sp.f16", "--row", "9", "--col", "13")
    assert "columns 12..15 of row 9 are held by lane 7, register 1 of 4 .b32" in text.out
    # the pair-wise 4:8 of .u4: a two-wide sub-chunk is one metadata index
    w = json.loads(run("where", os.path.join(SPECS, "m16n8k64.yaml"), "--fragment", "A.sp.i4", "--row", "3",
                       "--col", "21", "--format", "json").out)
    assert [(h["lane"], h["element"], h["metadata"]["value"]) for h in w["holders"]] == [(13, "a1", 2), (13, "a3", 2)]


def test_where_names_every_element_the_metadata_may_choose(run):
    """The document asks only distinct indices of a chunk of wgmma.mma_async.sp, and of plain mma.sp
    for .f16/.bf16, .u8/.s8, .u4/.s4: `where` assumed increasing ones everywhere, so it left out a6
    for A[45][23] of m64nNk32.sp (held by a6 when the first index is 3, metadata 0b0011)."""
    def holders(spec, fid, row, col):
        w = json.loads(run("where", os.path.join(SPECS, spec), "--fragment", fid, "--row", str(row), "--col", str(col),
                           "--format", "json").out)
        return [(h["element"], h["metadata"]["index"], h["metadata"]["increasing"], h["metadata"]["types"],
                 [t for x in h["registers"] for t in x["types"]]) for h in w["holders"]]

    f16 = ["f16", "bf16"]
    assert holders("m64nNk32.sp.yaml", "A.sp.f16", 45, 23) == [("a6", 0, False, f16, f16), ("a7", 1, True, f16, f16)]
    assert holders("m16n8k32.yaml", "A.sp.f16", 9, 15) == [("a2", 0, False, f16, f16), ("a3", 1, True, f16, f16)]
    fp8 = ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1"]
    # the 8-bit float types ask increasing indices of mma.sp itself: a6 is .s8/.u8's only
    assert holders("m16n8k64.yaml", "A.sp.i8", 9, 15) == [("a6", 0, False, ["s8", "u8"], ["s8", "u8"]),
                                                          ("a7", 1, True, ["s8", "u8", *fp8], ["s8", "u8", *fp8])]
    text = run("where", os.path.join(SPECS, "m16n8k64.yaml"), "--fragment", "A.sp.i8", "--row", "9", "--col", "15").out
    assert "a6  when the first index of chunk [12..15] is 3 (position 3); .s8/.u8 bits 16..23 -- .s8/.u8 with " \
           "mma.sp only: ::ordered_metadata's indices increase" in text
    assert "(with mma.sp a chunk's indices are distinct (0b0000, 0b0101, 0b1010, 0b1111 are invalid); with " \
           "mma.sp::ordered_metadata, and for .e4m3/.e5m2/.e3m2/.e2m3/.e2m1, they increase." in text
    text = run("where", os.path.join(SPECS, "m64nNk32.sp.yaml"), "--fragment", "A.sp.f16", "--row", "45",
               "--col", "23").out
    assert "ordered_metadata" not in text and "(a chunk's indices are distinct (0b0000, 0b0101" in text


def test_where_compressed_and_usage_errors(run):
    m32 = os.path.join(SPECS, "m16n8k32.yaml")
    w = json.loads(run("where", m32, "--fragment", "A.sp.f16", "--row", "9", "--col", "13", "--compressed",
                       "--format", "json").out)
    assert [(h["lane"], h["element"]) for h in w["holders"]] == [(6, "a7")]
    assert run("where", m32, "--fragment", "A.sp.f16", "--row", "0", "--col", "32").code == 2
    assert run("where", m32, "--fragment", "A.i8", "--row", "0", "--col", "0", "--compressed").code == 2


def test_eval_and_table_show_the_range(run):
    m32 = os.path.join(SPECS, "m16n8k32.yaml")
    r = run("eval", m32, "--fragment", "A.sp.f16", "--lane", "5", "--i", "6")
    assert r.code == 0
    assert "firstcol = 20" in r.out and "lastcol = 23" in r.out
    assert "holds the compressed A[9][10]: a non-zero element of A[9][20..23]" in r.out
    t = json.loads(run("table", m32, "--fragment", "A.sp.f16", "--format", "json").out)
    t = t[0] if isinstance(t, list) else t
    assert t["cols"] == 16 and t["sparse"]["k"] == 32
    assert [5, 6, 20, 23] in t["sparse"]["ranges"] and [5, 6, 9, 10] in t["entries"]


def test_figure_only_b_tables_are_checked(run):
    r = run("prove", os.path.join(SPECS, "m16n8k32.yaml"), "--format", "json")
    mine = [x for x in json.loads(r.out)["results"] if x["fragment"] == "B.sp.f16"]
    assert {(x["property"], x["verdict"], x["erratum"]) for x in mine} == {
        ("fragment-shape", "PROVED", False), ("fragment-shape", "REFUTED", True)}
    assert any("lists 4 elements" in x["message"] for x in mine)
    same = [x for x in json.loads(r.out)["results"] if x["property"] == "same-as"]
    assert same and all(x["verdict"] == "PROVED" for x in same)


def test_same_as_names_must_resolve(tmp_path, run):
    text = open(os.path.join(SPECS, "m16n8k32.yaml"), encoding="utf-8").read()
    bad = tmp_path / "m16n8k32.yaml"
    bad.write_text(text.replace("fragments: [m16n8k16/C.float]", "fragments: [m16n8k16/C.nope]"))
    (tmp_path / "m16n8k16.yaml").write_text(open(os.path.join(SPECS, "m16n8k16.yaml"), encoding="utf-8").read())
    r = run("prove", str(bad), "--format", "json")
    # the spec's own list is wrong, not the document: a spec error at the name (exit 3), as validate says
    same = [x for x in json.loads(r.out)["results"] if x["property"] == "same-as" and x["verdict"] == "SPEC_ERROR"]
    assert r.code == 3 and len(same) == 1
    assert "m16n8k16/C.nope: expected a fragment of m16n8k16 (" in same[0]["message"]
    assert "found none named 'C.nope'" in same[0]["message"]
    line = next(k for k, ln in enumerate(bad.read_text().splitlines(), 1) if "C.nope" in ln)
    assert same[0]["location"].startswith(f"{bad}:{line}:")
    assert run("validate", str(bad)).code == 3


@pytest.mark.parametrize("shape,fragment", SPARSE, ids=[f"{s}-{f.id}" for s, f in SPARSE])
def test_sparse_blocks_print_and_parse_back(shape, fragment):
    from checker.formula import printer

    text = printer.block(parse_block(fragment.formula))
    assert "col = [firstcol ... lastcol]" in text
    assert printer.block(parse_block(_src(text))) == text
