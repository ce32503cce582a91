"""The sparse wgmma register fragments (specs/m64nNk*.sp.yaml, 9.7.15.6.2): word for word in 9.1
and 9.2; the compressed A of each read from CuTe's sparse GMMA RS traits (sparse_elem<2, T> over
the uncompressed tile) and proved equal to them by both engines; D the dense shape's at every N;
the theorems that tie the compressed A to the dense A of half its K and to mma.sp's, each shown
failing on a misread figure."""
from __future__ import annotations

import io
import json
import os
import re

import pytest
import yaml
from conftest import DOCUMENT, ROOT, SPECS

from checker.formula.evaluate import cells
from checker.spec.load import load_spec
from checker.spec.reading import materialize
from test_versions import differences, section_text, words

SPARSE = {k: os.path.join(SPECS, f"m64nNk{k}.sp.yaml") for k in (16, 32, 64)}
DATA = os.path.join(ROOT, "checker", "references", "data", "cute-gmma-sparse.yaml")
ISA = os.path.join(DOCUMENT, "ptx-isa")
V92 = os.path.join(DOCUMENT, "ptx-isa-9.2")
ALL = tuple(range(8, 257, 8))
# K -> (fragment, types, registers x non-zero a register out of a range, the dense A of half K, mma.sp's A)
EXPECT = {32: ("A.sp.f16", ("f16", "bf16"), (4, 2, 4), "m64nNk16/A.f16", "m16n8k32/A.sp.f16"),
          16: ("A.sp.tf32", ("tf32",), (4, 1, 2), "m64nNk8/A.tf32", "m16n8k16/A.sp.tf32"),
          64: ("A.sp.i8", ("e4m3", "e5m2", "s8", "u8"), (4, 4, 8), "m64nNk32/A.i8", "m16n8k64/A.sp.i8")}
SAME_AS = {32: "m64nNk32/D.s32.float", 16: "m64nNk8/D.f32", 64: "m64nNk32/D.s32.float"}


def _run(*argv):
    from checker.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _reading_map(fragment) -> dict:
    r = materialize(fragment)
    points = [(t, i) for t in range(fragment.threads.count) for i in range(r.n)]
    rows, cols = cells(r.layout, points)
    return dict(zip(points, zip(rows, cols)))


def _texts(root):
    out = {}
    for base, _dirs, names in os.walk(root):
        for n in names:
            if n.endswith(".md"):
                out[os.path.join(base, n)] = open(os.path.join(base, n), encoding="utf-8").read()
    return out


# --- the specs ------------------------------------------------------------------------------------

@pytest.mark.parametrize("k", sorted(EXPECT))
def test_each_sparse_spec_is_one_compressed_a_over_the_warpgroup(k):
    spec = load_spec(SPARSE[k])
    fid, types, (count, per, out_of), _dense, _sp = EXPECT[k]
    assert (spec.family, spec.shape, spec.parameters) == ("wgmma.sp", f"m64nNk{k}.sp", (("N", ALL),))
    [f] = spec.fragments()  # one instance: nothing of A depends on N
    assert (f.id, f.operand, f.types, f.threads.count) == (fid, "A", types, 128)
    assert (f.rows, f.cols, f.sparsity.k) == (64, k // 2, k)
    assert {(row.count, row.per_register, row.out_of) for row in f.table} == {(count, per, out_of)}
    # the Elements note lists exactly the elements the registers hold (a0, ..., a15 written with an ellipsis)
    listed = re.findall(r"\ba(\d+)\b", f.table[0].elements_note)
    assert int(listed[-1]) + 1 == count * per == materialize(f).n
    [same] = [s for sec in spec.sections for s in sec.same_as]
    assert (same.operands, same.fragments) == (("D",), (SAME_AS[k],))


def test_the_readings_name_cute_and_say_they_are_readings():
    data = yaml.safe_load(open(DATA, encoding="utf-8"))
    named = {(e["fragment"]["spec"], e["fragment"]["id"]): e for e in data["entries"]}
    for k, path in SPARSE.items():
        f = load_spec(path).fragments()[0]
        fr = f.figure_reading
        assert fr.standing == "agreed" and fr.figure in f.figures
        [src] = fr.sources
        assert (src.library, src.repo, src.commit, src.path, src.reference) == (
            "CuTe", data["repo"], data["commit"], data["path"], "cute-gmma-sparse")
        entry = named[(f"m64nNk{k}.sp", f.id)]
        # the reading cites a line some entry of the data file stands at, for its own fragment
        assert src.line in {e["line"] for e in data["entries"] if e["fragment"]["id"] == f.id}, (k, src.line)
        assert entry["encoding"]["sparse"] == 2 and entry["encoding"]["tile"] == [64, k]


# --- word for word, 9.1 and 9.2 -----------------------------------------------------------------

def _storage(texts, number):
    found = section_text(texts, number)
    assert found is not None, number
    return words(found[1])


@pytest.mark.parametrize("root,version", [(ISA, "9.1"), (V92, "9.2")])
def test_every_printed_text_is_the_documents(root, version):
    """Title, Fragment cell, Elements cell (9.2: as its declared difference), caption, the "same
    as" sentence, the storage sentence and the stated metadata sentences, in each version's words;
    the reading is not in any code block (nothing is claimed printed)."""
    texts = _texts(root)
    storage = _storage(texts, "9.7.15.6.1")
    conventions = _storage(texts, "9.7.15.6.2")
    for k, path in SPARSE.items():
        spec = load_spec(path)
        [sec] = spec.sections
        assert version in sec.versions
        title, text = section_text(texts, sec.section)
        body = words(text)
        assert words(title) == words(sec.title)
        f = sec.fragments[0]
        assert words(f"{f.figures[0]} {f.caption}") in body
        for row in f.table:
            assert words(row.fragment) in body, (k, row.fragment)
        note = words(f.table[0].elements_note)
        if version == "9.2":
            [d] = sec.differences
            assert words(d.fragment_cell) == words(f.table[0].fragment) and words(d.elements_cell) in body
            assert words(d.elements_cell).replace(".", "") == note.replace(".", "")  # the words are the same
        else:
            assert note in body
        assert words(sec.same_as[0].printed) in body
        assert words(f.sparsity.printed) in storage
        for s in sec.stated:
            assert words(s) in body + " " + storage + " " + conventions, (k, version, s)
        assert f.formula.text not in text
    # the table that gives each warp its rows
    for w, rows in ((3, "48-63"), (2, "32-47"), (1, "16-31"), (0, "0-15")):
        assert f"%warpid % 4 = {w} | {rows}" in conventions.replace(" |", " |")


def test_the_9_2_comparison_of_test_versions_finds_nothing_and_can_fail():
    import dataclasses

    texts = _texts(V92)
    for path in SPARSE.values():
        assert differences(path, load_spec(path).sections, texts) == []
    sec = load_spec(SPARSE[32]).sections[0]
    got = differences(SPARSE[32], [dataclasses.replace(sec, differences=())], texts)
    assert [(fid, what) for _, fid, what, _ in got] == [("A.sp.f16", "elements")]


# --- the readings equal CuTe: evaluated here, and by checker conformance --------------------------

def _cute_sparse(entry) -> dict:
    """CuTe's layout with sparse_elem<S, T> values, evaluated here without the checker: stored
    element i is logical values S*i.., which must share a row and a run of S columns."""
    from test_wgmma import cute_index, cute_layout, _size

    shape, stride = cute_layout(entry["encoding"]["layout"])
    rows, _ = entry["encoding"]["tile"]
    s = entry["encoding"]["sparse"]
    out = {}
    for t in range(_size(shape[0])):
        for i in range(_size(shape[1]) // s):
            cs = {(idx % rows, idx // rows // s) for idx in (cute_index(shape, stride, t, s * i + k) for k in range(s))}
            assert len(cs) == 1, (entry["name"], t, i, cs)
            out[(t, i)] = cs.pop()
    return out


def test_every_entry_equals_its_reading_evaluated_here():
    data = yaml.safe_load(open(DATA, encoding="utf-8"))
    assert len(data["entries"]) == 7 and len({e["name"] for e in data["entries"]}) == 7
    for e in data["entries"]:
        f = load_spec(os.path.join(SPECS, e["fragment"]["spec"] + ".yaml")).fragment(e["fragment"]["id"])
        assert _cute_sparse(e) == _reading_map(f), e["name"]


def test_conformance_proves_every_entry_equal_with_both_engines():
    code, out, err = _run("conformance", "specs/", "--references", DATA, "--format", "json")
    assert code == 0, err
    got = json.loads(out)["entries"]
    assert [(e["fragment"], e["verdict"]) for e in got] == [(e["fragment"], "equal") for e in got] and len(got) == 7
    assert all("the enumeration agrees" in e["comparison"]["proofs"][0] for e in got)


def test_a_misread_entry_is_refuted_at_the_smallest_point(tmp_path):
    """Read without sparse_elem (a stored element per logical value) the layout has twice the
    elements; read with the ALayout of the dense 16-bit A it is a different map."""
    text = open(DATA, encoding="utf-8").read()
    (tmp_path / "dense.yaml").write_text(text.replace("      sparse: 2\n", "", 1), encoding="utf-8")
    code, out, _ = _run("conformance", "specs/", "--references", str(tmp_path / "dense.yaml"), "--format", "json")
    first = json.loads(out)["entries"][0]
    assert code == 1 and first["verdict"] == "differs"
    wrong = text.replace("Stride<_256,_1,_16>,Stride<_64,_8,_1024>", "Stride<_256,_1,_16>,Stride<_8,_64,_1024>", 1)
    (tmp_path / "swapped.yaml").write_text(wrong, encoding="utf-8")
    code, out, _ = _run("conformance", "specs/", "--references", str(tmp_path / "swapped.yaml"), "--format", "json")
    first = json.loads(out)["entries"][0]
    assert code == 1 and first["verdict"] == "differs" and first["name"] == "SPARSE::GMMA_64x8x32_F16F16F16_RS::ALayout"
    # logical values 0 and 1 of thread 0 now lie 8 rows apart: its a0 is held by neither side alike
    assert "thread 0" in first["reason"] or "%tid = 0" in first["reason"] or "lane 0" in first["reason"], first["reason"]


# --- every N, the theorems ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def proved():
    code, out, err = _run("prove", *SPARSE.values(), "--format", "json", "--no-cache")
    assert code == 0, err
    return json.loads(out)["results"]


def test_the_compressed_a_proves_and_d_is_the_dense_d_at_every_n(proved):
    for k, path in SPARSE.items():
        fid = EXPECT[k][0]
        mine = {r["property"]: r["verdict"] for r in proved if r["spec"] == path and r["fragment"] == fid
                and not r["erratum"]}  # m64nNk64.sp's Elements note: an erratum of its words
        assert mine == {p: "PROVED" for p in ("fragment-shape", "defined", "in-range", "injective", "covers", "chunk")}
        same = next(r for r in proved if r["spec"] == path and r["property"] == "same-as")
        assert same["verdict"] == "PROVED" and SAME_AS[k] in same["message"]
        # the D it names is proved at every N, in the dense spec the scope brings in
        shape, did = SAME_AS[k].split("/")
        dense = os.path.join(SPECS, f"{shape}.yaml")
        ns = {int(re.search(r"\[N=(\d+)\]", r["fragment"]).group(1)) for r in proved
              if r["spec"] == dense and (r["fragment"] or "").startswith(did + "[") and r["verdict"] == "PROVED"
              and r["property"] == "covers"}
        assert ns == set(ALL), (k, sorted(set(ALL) - ns))


def test_the_theorems_hold(proved):
    got = {(os.path.basename(r["spec"]), r["subject"]) for r in proved
           if r["property"] == "warpgroup" and r["spec"] in SPARSE.values() and r["verdict"] == "PROVED"}
    want = set()
    for k, (fid, _types, _regs, dense, sp) in EXPECT.items():
        name = f"m64nNk{k}.sp.yaml"
        want |= {(name, f"warp-rows: {fid}"), (name, f"compressed-dense: {fid} and {dense}"),
                 (name, f"sp-stacked: {fid} and {sp}")}
    assert got == want
    assert not [r for r in proved if r["spec"] in SPARSE.values() and r["verdict"] != "PROVED" and not r["erratum"]]


MISREAD = ("row = (warpID * 16) + groupID        for ai where 0 <= i < 2 || 4 <= i < 6",
           "row = ((warpID ^ 1) * 16) + groupID  for ai where 0 <= i < 2 || 4 <= i < 6")


def test_a_figure_read_wrong_fails_every_theorem_with_a_counterexample(tmp_path):
    """Warps 0 and 1 swapped in the rows of a0, a1, a4, a5 (a plausible misreading of the figure):
    the compressed A stays a bijection, so every fragment property proves, but each theorem is
    refuted, with the smallest counterexample, both engines agreeing."""
    import shutil

    text = open(SPARSE[32], encoding="utf-8").read()
    assert MISREAD[0] in text
    (tmp_path / "m64nNk32.sp.yaml").write_text(text.replace(MISREAD[0], MISREAD[1]), encoding="utf-8")
    for name in ("m64nNk16.yaml", "m64nNk32.yaml", "m16n8k32.yaml", "m16n8k16.yaml"):
        shutil.copy(os.path.join(SPECS, name), tmp_path / name)
    code, out, _ = _run("prove", str(tmp_path / "m64nNk32.sp.yaml"), "--format", "json", "--no-cache")
    results = [r for r in json.loads(out)["results"] if r["spec"].endswith("m64nNk32.sp.yaml") and not r["erratum"]]
    assert code == 1
    assert all(r["verdict"] == "PROVED" for r in results if r["fragment"] == "A.sp.f16")
    failed = {r["subject"].split(":")[0]: r for r in results if r["property"] == "warpgroup" and r["verdict"] != "PROVED"}
    assert set(failed) == {"warp-rows", "sp-stacked", "compressed-dense"}
    # thread 0's a0 is now row 16 (warp 1's rows), the dense and mma.sp A's a0 row 0
    for name in ("sp-stacked", "compressed-dense"):
        cx = failed[name]["counterexample"]
        assert cx["point"] == {"lane": 0, "i": 0} and cx["left"]["cell"] == [16, 0] and cx["right"]["cell"] == [0, 0]
    assert failed["warp-rows"]["counterexample"]["point"] == {"lane": 0, "i": 0}


def test_a_reading_that_leaves_a_is_refuted_at_its_line(tmp_path):
    """a4..a7 read 8 columns right instead of 16: the compressed A is not covered, the register
    ranges overlap; the error is located at the piece of the reading that gives the column."""
    text = open(SPARSE[32], encoding="utf-8").read()
    old = "(threadID_in_group * 4) + 16   for ai where i >= 4"
    line = text[:text.index(old)].count("\n") + 1
    (tmp_path / "m64nNk32.sp.yaml").write_text(text.replace(old, "(threadID_in_group * 4) + 8    for ai where i >= 4"),
                                               encoding="utf-8")
    code, out, _ = _run("prove", str(tmp_path / "m64nNk32.sp.yaml"), "--no-cache")
    assert code == 1
    assert re.search(r"m64nNk32\.sp\.yaml:\d+:\d+: error: A\.sp\.f16 injective refuted: .*lane 0 a4 and lane 2 a0 "
                     r"both hold the compressed A\[0\]\[4\]", out), out
    # the witness names the misread piece at its line: lane 0's a4 takes firstcol's second piece
    assert re.search(rf"lane 0 a4: firstcol piece 2 at \S*m64nNk32\.sp\.yaml:{line}:\d+ gives 8", out), out
    assert "A.sp.f16 covers refuted: A.sp.f16 does not cover the compressed A[0][12]" in out


def test_where_answers_every_cell_of_a_sparse_warpgroup_a():
    """`checker where` on a sparse wgmma A: every cell of the uncompressed 64 x K is covered by one
    register of one thread, of warp row / 16 (it once looked at lanes 0..31 only, and said that no
    register covers rows 16..63)."""
    from checker.export.where import where, where_text

    for name, fid, k in (("m64nNk32.sp", "A.sp.f16", 32), ("m64nNk16.sp", "A.sp.tf32", 16)):
        path = f"{SPECS}/{name}.yaml"
        for row in range(64):
            for col in range(k):
                w = where(path, fid, row, col)
                assert w["holders"] and w["unique"], (name, row, col)
                assert {h["warp"] for h in w["holders"]} == {row // 16}, (name, row, col)
                assert {h["thread"] for h in w["holders"]} == {32 * (row // 16) + h["lane"] for h in w["holders"]}
        assert "held by thread 37 (warp 1, lane 5)" in where_text(where(f"{SPECS}/m64nNk32.sp.yaml", "A.sp.f16", 17, 5))


def test_the_reports_sparse_panel_draws_every_row_of_the_warpgroup():
    """The report's drawing of a sparse A (every register's column range) covers all 64 rows of a
    warpgroup's A, not a warp's first 16."""
    from checker.loading import load
    from checker.report.gather import panels
    from checker.spec.reading import materialize

    spec, _ = load(f"{SPECS}/m64nNk32.sp.yaml")
    f = spec.fragment("A.sp.f16")
    r = materialize(f)
    sparse = panels(f, r.layout, r.n, {})[-1]
    assert {row for row, _ in sparse.cells} == set(range(64))
    assert len(sparse.cells) == 64 * 32
