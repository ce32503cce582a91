"""The wgmma rows of the ISA coverage table: every form of 9.7.15.2 x 9.7.15.3 is a row (the quotes
each row is read from are in its section, word for word; its K and N are 9.1's table's and 9.2's,
where a row 9.2 prints otherwise is declared with its line), the dense rows are given and proved at
every N by the wgmma specs, the probe's kernels are counted per row (1152 in all: every kernel of
checker/probe/wgmma_ptx.py, 948 behind no-swizzle descriptors and 204 swizzled), and the sparse rows
are given by the wgmma.sp specs (A) and the dense D their `same_as` names, or marked as having no
spec yet where those specs are not there."""
import glob
import os
import re

import pytest

from conftest import DOCUMENT, ROOT, SPECS

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


SHAPES_91 = os.path.join(DOCUMENT, "ptx-isa", "9.7.15.2-wgmma-matrix-shape.md")
SHAPES_92 = os.path.join(DOCUMENT, "ptx-isa-9.2", "15-wgmma", "matrix-shapes.md")


def _words(text: str) -> str:
    """Markup and runs of whitespace taken off (the two versions' conversions mark the same words
    up differently: `.m64n8k16`, `.m64n16k16` in 9.1, one code span in 9.2)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return " ".join(text.replace("`", "").replace("**", "").split())


def _table(path: str) -> list:
    """The shape table's rows below its header: (line, [cells]), markup off."""
    out = []
    for k, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.strip()
        if line.startswith("|") and not re.fullmatch(r"[|\s:-]+", line):
            out.append((k, [_words(c) for c in line[1:-1].split("|")]))
    return out[1:]


def _shapes(cell: str):
    """(K, [N...]) of a Shape cell that lists shapes, else None."""
    found = re.findall(r"\.m64n(\d+)k(\d+)", cell)
    if not found:
        return None
    assert len({k for _, k in found}) == 1, cell
    return int(found[0][1]), [int(n) for n, _ in found]


def _key(entry: dict) -> tuple:
    """The row an entry is read from: its type cell and its sparsity."""
    return _words(entry["quotes"][0]).strip("| ").split(" | ")[0], "Sparse" if entry["sparse"] else "Dense"


def _read_91() -> dict:
    """9.1's table with its merged cells read: a row one or two cells short takes the cells it
    lacks from the row above (9.1's conversion leaves a merged cell out of the rows it spans)."""
    out, above = {}, None
    for _, cells in _table(SHAPES_91):
        full = cells + above[len(cells):] if len(cells) < 3 else cells
        out[(full[0], full[1])] = _shapes(full[2])
        above = full
    return out


def _resolve_92(rows: list, k: int):
    """What 9.2's row k gives: its Shape cell's shapes, or, where the conversion wrote "(same
    [`.m64nNkK`] shapes as [dense] T above)", those of the nearest row above whose type cell names
    T's types (and is dense, where it says so) and lists shapes."""
    cells = rows[k][1]
    listed = _shapes(cells[2])
    if listed is not None:
        return listed
    m = re.fullmatch(r"\(same (?:\S+ )?shapes as (dense )?(.+) above\)", cells[2])
    assert m, cells
    types = set(re.findall(r"\.[a-z]\w*", m.group(2)))
    for _, above in reversed(rows[:k]):
        if types <= set(re.findall(r"\.[a-z]\w*", above[0])) and (not m.group(1) or above[1] == "Dense") \
                and _shapes(above[2]) is not None:
            return _shapes(above[2])
    raise AssertionError(cells)


def test_each_row_is_the_shape_tables_in_9_1_with_its_merged_cells():
    """The K and N of every form are the 9.1 table's, a merged Shape cell spanning the rows under
    it: the sparse .tf32 row, printed right under the .f16 and .bf16 rows without a Shape cell, has
    their m64nNk16 shapes; the sparse .f16 and .bf16 rows the .e4m3/.e5m2 dense row's m64nNk32."""
    table = _read_91()
    for entry in isa_wgmma.support():
        assert table[_key(entry)] == (entry["k"], isa_wgmma.ns(entry)), entry["quotes"][0]
    assert table[("Alternate floating-point format - .tf32", "Sparse")][0] == 16


def test_each_row_is_9_2s_but_where_a_difference_says_how_9_2_prints_it():
    """9.2 checked as 9.1 is: each row's shapes are 9.2's, or the entry gives the row as 9.2 prints
    it, verbatim at its line, and says whether the conversion's "(same shapes as ... above)" means
    the row's K and N (resolved here to the row it names). A row 9.2 prints otherwise undeclared
    fails, and so does a declaration 9.2 no longer needs. One 9.2 row contradicts the rest of both
    versions: sparse .tf32 given the dense .tf32 m64nNk8 shapes."""
    rows = _table(SHAPES_92)
    lines = open(SHAPES_92, encoding="utf-8").read().splitlines()
    by_key = {(cells[0], cells[1]): k for k, (_, cells) in enumerate(rows)}
    text92 = _words(" ".join(open(p, encoding="utf-8").read() for p in
                             glob.glob(os.path.join(DOCUMENT, "ptx-isa-9.2", "15-wgmma", "**", "*.md"), recursive=True)))
    text91 = _words(" ".join(open(p, encoding="utf-8").read()
                             for p in glob.glob(os.path.join(DOCUMENT, "ptx-isa", "9.7.15.*.md"))))
    declared, contradicting = 0, []
    for entry in isa_wgmma.support():
        want = (entry["k"], isa_wgmma.ns(entry))
        diffs = [d for d in entry.get("differences", ()) if d["version"] == "9.2"]
        if not diffs:
            k = by_key[_key(entry)]
            assert _shapes(rows[k][1][2]) == want, (entry["quotes"][0], rows[k])
            assert all(_words(q) in text92 for q in entry["quotes"]), entry["quotes"]
            continue
        (d,) = diffs
        declared += 1
        assert all(_words(q) in text92 for q in entry["quotes"][1:]), entry["quotes"]  # the row itself is `printed`
        path, line = d["at"].rsplit(":", 1)
        assert os.path.join(ROOT, path) == SHAPES_92 and lines[int(line) - 1].strip() == d["printed"], d["at"]
        cells = [_words(c) for c in d["printed"].strip()[1:-1].split("|")]
        k = by_key[(cells[0], cells[1])]
        assert _shapes(rows[k][1][2]) != want  # needed: 9.2 does not print the row's shapes
        assert (_resolve_92(rows, k) == want) == d["agrees"], d["printed"]
        if not d["agrees"]:
            contradicting.append(cells[0])
            assert all(_words(q) in text91 and _words(q) in text92 for q in d["against"]), d["against"]
    assert declared == 4 and contradicting == ["Alternate floating-point format - .tf32"]
    assert len(rows) == len(isa_wgmma.support())  # no row of 9.2 left unread


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
    assert all(r.kernels > 0 and r.ptx == ("8.2; .u8.s8, .s8.u8: 8.4" if {"u8", "s32"} & set(r.types) else "8.2") for r in sparse)
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
