"""The minimum PTX version and target of every mma / mma.sp row of the support table
(checker/report/isa-support.yaml) read from the document's own sentences, in both versions: each
row's PTX ISA Notes and Target ISA Notes are in 9.1's notes of 9.7.14.5.14 / 9.7.14.6.3 and in
9.2's, word for word (markup aside), but where the row declares how 9.2 prints the sentence
otherwise; a declaration 9.2 no longer needs fails too. The row's `ptx` is the highest version its
PTX notes name and every Target note names its `target`. The wgmma rows' one version and target
(checker/report/isa_wgmma.py) are held to 9.7.15.5.2's and 9.7.15.6.3's notes in both versions too.
The other support data is held to 9.2 where it is kept: ldmatrix / stmatrix / movmatrix in
tests/unit/test_movement_probe.py, the wgmma shapes in tests/unit/test_isa_wgmma.py."""
import os
import re

from conftest import DOCUMENT, ROOT

from checker.catalogue import support, version_key

FILES = {
    "mma": ("ptx-isa/9.7.14.5.14-mma-instruction.md",
            "ptx-isa-9.2/14-warp-level-mma/mma/mma-instruction-syntax-description.md"),
    "mma.sp": ("ptx-isa/9.7.14.6.3-mma-sp-instruction.md",
               "ptx-isa-9.2/14-warp-level-mma/mma-sp/mma-sp-instruction.md"),
}


def _words(text: str) -> str:
    """Backticks and runs of whitespace off: 9.2's conversion marks `.u8`/`.s8` where 9.1 marks
    `.u8/.s8`, and leaves out the backticks around mma that 9.1 prints."""
    return " ".join(text.replace("`", "").split())


def _notes(relpath: str) -> dict:
    """The PTX ISA Notes and the Target ISA Notes of a section: each the text between its heading
    and the next (9.1 prints them as bare lines, 9.2 as `##` or `###` headings)."""
    with open(os.path.join(DOCUMENT, relpath), encoding="utf-8") as fh:
        text = fh.read()
    ptx = re.search(r"^(?:#+ )?PTX ISA Notes$(.*?)^(?:#+ )?Target ISA Notes$(.*?)^(?:#+ )?Examples", text, re.M | re.S)
    assert ptx, relpath
    return {"ptx_notes": _words(ptx.group(1)), "target_notes": _words(ptx.group(2))}


def _versions(sentence: str) -> list:
    return re.findall(r"PTX ISA version (\d+\.\d+)", sentence)


def test_every_row_reads_its_minimums_from_notes_9_1_prints():
    rows = support()
    assert len(rows) == 31 and all(r["ptx_notes"] and r["target_notes"] for r in rows)
    for r in rows:
        notes = _notes(FILES[r["instruction"]][0])
        for key in ("ptx_notes", "target_notes"):
            for sentence in r[key]:
                assert _words(sentence) in notes[key], (r["row"], sentence)
        # a row needs all its PTX notes name: the highest (.f16 accumulators with .e4m3: 8.7, not 8.4)
        assert max((v for s in r["ptx_notes"] for v in _versions(s)), key=version_key) == r["ptx"], r["row"]
        assert all(f"`{r['target']}`" in s for s in r["target_notes"]), r["row"]


def test_every_note_is_9_2s_but_where_a_difference_says_how_9_2_prints_it():
    """9.2 read as 9.1 is. One sentence differs: the Target ISA Note of .u4/.s4 .m8n8k32, which 9.2
    prints without the word "shape" (same target)."""
    declared = []
    for r in support():
        notes = _notes(FILES[r["instruction"]][1])
        diffs = {d["at"]: d for d in r.get("differences", ()) if d["version"] == "9.2"}
        missing = [s for key in ("ptx_notes", "target_notes") for s in r[key] if _words(s) not in notes[key]]
        assert len(missing) == len(diffs), (r["row"], missing, list(diffs))  # each declared, none stale
        for sentence, (at, d) in zip(missing, sorted(diffs.items())):
            path, line = at.rsplit(":", 1)
            assert os.path.join(ROOT, path) == os.path.join(DOCUMENT, FILES[r["instruction"]][1]), at
            with open(os.path.join(ROOT, path), encoding="utf-8") as fh:
                assert fh.read().splitlines()[int(line) - 1].strip() == d["printed"], at
            assert _words(d["printed"]) in " ".join(notes.values())
            # what 9.2 prints names the same versions and targets as the sentence it stands for
            assert _versions(d["printed"]) == _versions(sentence)
            assert re.findall(r"sm_\w+", d["printed"]) == re.findall(r"sm_\w+", sentence)
            declared.append((r["shapes"], sentence))
    assert [s for s, _ in declared] == [["m8n8k32"]]


WGMMA = {False: ("ptx-isa/9.7.15.5.2-wgmma-mma-async-instruction.md", "ptx-isa-9.2/15-wgmma/mma-async/wgmma-mma-async.md"),
         True: ("ptx-isa/9.7.15.6.3-wgmma-mma-async-sp-instruction.md",
                "ptx-isa-9.2/15-wgmma/mma-async/wgmma-mma-async-sp.md")}


def test_the_wgmma_rows_minimums_are_the_notes_of_both_versions():
    """wgmma's PTX version and target (checker/catalogue.py, which the probe builds at and the report
    shows: 8.0 dense, 8.2 sparse, sm_90a; 8.4 for the mixed integer forms) are what the PTX ISA Notes and Target ISA Notes of 9.7.15.5.2 and 9.7.15.6.3 say, in
    9.1 and in 9.2 (9.2 prints `.atype.btype` as code and sm_90a as plain text: the same words).
    Both versions add: "Support for .u8.s8 and .s8.u8 as .atype.btype introduced in PTX ISA version
    8.4"."""
    from checker import catalogue

    mixed = f"Support for .u8.s8 and .s8.u8 as .atype.btype introduced in PTX ISA version {catalogue.WGMMA_MIXED_INT_PTX}."
    for sparse, files in WGMMA.items():
        for relpath in files:
            notes = _notes(relpath)
            assert notes["ptx_notes"].startswith(f"Introduced in PTX ISA version {catalogue.WGMMA_PTX[sparse]}."), relpath
            assert mixed in notes["ptx_notes"], relpath
            assert notes["target_notes"] == f"Requires {catalogue.WGMMA_TARGET}.", relpath


def test_the_integer_wgmma_rows_say_the_mixed_forms_need_a_later_version():
    """The integer rows (A and B each .u8 or .s8) need 8.0 (8.2 sparse) with A and B of one sign and
    8.4 for .u8.s8 and .s8.u8, which the row's PTX cell says. The report sets the instruction against
    9.7.15.3's data-type table, which still says "both .u8 or both .s8": the table, the syntax and
    an example of each mixed form are read here in both versions, so the paragraph goes when the
    document changes."""
    from checker.report import isa_wgmma

    cells = {(e["sparse"], e["k"]): isa_wgmma.ptx_of(e) for e in isa_wgmma.support()}
    assert cells[(False, 32)] == "8.0; .u8.s8, .s8.u8: 8.4" and cells[(True, 64)] == "8.2; .u8.s8, .s8.u8: 8.4"
    assert cells[(False, 16)] == "8.0" and cells[(False, 256)] == "8.0" and cells[(True, 32)] == "8.2"
    tables = ("ptx-isa/9.7.15.3-wgmma-matrix-data-types.md", "ptx-isa-9.2/15-wgmma/matrix-datatypes.md")
    for relpath in tables:
        with open(os.path.join(DOCUMENT, relpath), encoding="utf-8") as fh:
            assert "| Integer | both .u8 or both .s8 | .s32 |" in _words(fh.read()), relpath
    for relpath in WGMMA[False]:
        with open(os.path.join(DOCUMENT, relpath), encoding="utf-8") as fh:
            text = _words(fh.read())
        assert ".atype = {.s8, .u8};" in text and ".btype = {.s8, .u8};" in text, relpath
        assert "m64n8k32.s32.s8.u8" in text and "m64n8k32.s32.u8.s8" in text, relpath


SHAPES = ("ptx-isa/9.7.14.1-matrix-shape.md", "ptx-isa-9.2/14-warp-level-mma/matrix-shapes.md")


def _shape_table(relpath: str) -> list:
    """9.7.14.1's shape table, each row (line, instruction, sparsity, types, scaled, shapes, version)
    with its merged cells read: 9.1's conversion leaves a merged cell out of the rows it spans (a
    row short of cells takes the leading ones it lacks from the row above), 9.2's leaves it empty."""
    out, above = [], None
    with open(os.path.join(DOCUMENT, relpath), encoding="utf-8") as fh:
        lines = list(enumerate(fh, 1))
    table = [(k, [_words(c) for c in line.strip()[1:-1].split("|")]) for k, line in lines
             if line.strip().startswith("|") and not re.fullmatch(r"[|\s:-]+", line.strip())]
    for k, cells in table[1:]:
        if len(cells) < 6:
            cells = above[:6 - len(cells)] + cells
        cells = [c or above[i] for i, c in enumerate(cells)]
        above = cells
        instruction, _scale, sparsity, types, shapes, version = cells
        out.append((k, instruction, sparsity, set(re.findall(r"\.(\w+)", types.split(" X ")[0])),
                    " X (Scale) " in types, set(re.findall(r"\.(m\d+n\d+k\d+)", shapes)), version.split()[-1]))
    return out


def test_every_rows_version_is_the_shape_tables_in_both_versions():
    """9.7.14.1 prints a PTX version per instruction, sparsity, type and shape, the same in 9.1 and
    9.2 (their conversions differ only in how the merged cells are written). Each row's `ptx` is the
    latest of the versions the table gives its shapes and A/B types, in both; one row is later, as
    its notes say: .f16 accumulators with .e4m3/.e5m2 (8.7), which the table, by multiplicand type,
    gives as the .e4m3/.e5m2 m16n8k32 row's 8.4."""
    tables = [_shape_table(p) for p in SHAPES]
    assert [r[1:] for r in tables[0]] == [r[1:] for r in tables[1]]
    later = []
    for r in support():
        versions = []
        for shape in r["shapes"]:
            for t in r["ab"]:
                found = [e[6] for e in tables[1] if e[1] == "mma" and (e[2] == "Dense") == (r["instruction"] == "mma")
                         and t in e[3] and shape in e[5] and e[4] == (r["kind"] in ("mxf4", "mxf4nvf4"))]
                assert found, (r["row"], shape, t)
                versions.append(min(found, key=version_key))
        table = max(versions, key=version_key)
        assert version_key(r["ptx"]) >= version_key(table), r["row"]
        if r["ptx"] != table:
            later.append((r["shapes"], r["cd"], table))
            assert any("`.f16` `dtype`/`ctype`" in s and f"version {r['ptx']}" in s for s in r["ptx_notes"]), r["row"]
    assert later == [(["m16n8k32"], ["f16"], "8.4")]
