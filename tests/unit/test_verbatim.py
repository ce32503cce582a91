"""`checker verbatim`: a spec's verbatim fields sought in a copy of the document. The fixture
(tests/cases/verbatim/) is one section of PTX ISA, 9.7.14.5.13, as the three copies in document/
print it (the seed, the 9.1 Markdown, 9.2's Markdown), and specs/m16n8k256.yaml. The whole
catalogue against the whole of document/ is tests/unit/test_document.py."""
import dataclasses
import json
import os
import shutil

import pytest

from conftest import CASES, DOCUMENT, SPECS

from checker.source import SourceText
from checker.verbatim import document, fields, match
from checker.verbatim import normalise as nm

HERE = os.path.join(CASES, "verbatim")
DOC = os.path.join(HERE, "document")
SPEC = os.path.join(HERE, "m16n8k256.yaml")


def _copy(tmp_path, old: str, new: str) -> str:
    """The fixture spec with one change, in a folder of its own (the file name is its shape)."""
    text = open(SPEC, encoding="utf-8").read()
    assert text.count(old) == 1, old
    path = tmp_path / "m16n8k256.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return str(path)


def _line_col(path: str, needle: str, offset: int = 0) -> str:
    text = open(path, encoding="utf-8").read()
    at = text.index(needle) + offset
    line = text.count("\n", 0, at) + 1
    return f"{path}:{line}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"


def test_every_field_of_the_fixture_is_found_in_both_versions(run):
    r = run("verbatim", SPEC, "--document", DOC)
    assert r.code == 0, r.out + r.err
    assert f"{SPEC}: 18 of 18 verbatim fields found (9.1 and 9.2: 18)" in r.out
    assert r.out.splitlines()[-1].startswith("1 spec: 18 verbatim fields checked, 18 found (9.1 and 9.2: 18), 0 not found; "
                                             "document: 4 files (9.1: 1, 9.2: 2, version unknown: 1)")
    data = json.loads(run("verbatim", SPEC, "--document", DOC, "--format", "json").out)
    assert data["summary"]["found"] == data["summary"]["fields"] == 18 and data["summary"]["not_found"] == 0
    kinds = {x["field"]: x["kind"] for x in data["fields"]}
    assert kinds["A.b1 formula"] == "formula" and kinds["A.b1 row 1 fragment"] == "cell" and kinds["A.b1 header"] == "head"
    assert kinds["A.b1 row 1 elements"] == "next" and kinds["B.b1 caption"] == "prose" and kinds["title"] == "title"
    assert sum(x["field"] == "B.b1 caption" for x in data["fields"]) == 2  # one per figure: 101 and 102
    # the seed's plain copy has no version; the 9.1 file says its own, the 9.2 one by its README
    found = next(x for x in data["fields"] if x["field"] == "A.b1 formula")["found"]
    assert {(os.path.relpath(f["location"].split(":")[0], DOC), f["version"]) for f in found} == {
        ("seeds/001_c1b39511f32c5050.txt", None), ("ptx-isa/9.7.14.5.13-m16n8k256.md", "9.1"),
        ("ptx-isa-9.2/mma/05-m16n8k256.md", "9.2")}


def test_a_fragment_cell_one_character_off_is_located_with_the_nearest_text_and_a_diff(run, tmp_path):
    path = _copy(tmp_path, "containing thirty two `.b1` elements from the matrix A",
                 "containing thirty-two `.b1` elements from the matrix A")
    r = run("verbatim", path, "--document", DOC)
    assert r.code == 1
    at = _line_col(path, "thirty-two", len("thirty"))
    line = next(ln for ln in r.out.splitlines() if ln.startswith(at))
    assert line.startswith(f"{at}: error: A.b1 row 1 fragment: not in the document; nearest: 'A vector expression "
                           f"containing four .b32 registers, with each register containing thirty two .b1")
    assert "9.7.14.5.13-m16n8k256.md:29:11 (9.1)" in line or "(9.2)" in line or "(version unknown)" in line
    diff = r.out.splitlines()[r.out.splitlines().index(line) + 1]
    assert diff.startswith("    diff (spec -> document): ") and "thirty[---]{+ +}two" in diff
    assert "1 spec: 18 verbatim fields checked, 17 found" in r.out and "1 not found" in r.out


def test_a_formula_one_character_off_is_located_at_that_character(run, tmp_path):
    path = _copy(tmp_path, "(i & 0x1F) + 128     for ai where i >= 64", "(i & 0x1F) + 129     for ai where i >= 64")
    r = run("verbatim", path, "--document", DOC, "--format", "json")
    assert r.code == 1
    bad = [x for x in json.loads(r.out)["fields"] if x["status"] != "found"]
    assert [x["field"] for x in bad] == ["A.b1 formula"]
    assert bad[0]["location"] == _line_col(path, "+ 129     for ai", 4)
    assert bad[0]["diff"].endswith("+ 12[-9-]{+8+} for ai where i >= 64")
    assert bad[0]["nearest"]["text"].startswith("groupID = %laneid >> 2\nthreadID_in_group = %laneid % 4\nrow =")


def test_a_header_is_that_of_its_own_table_and_an_empty_cell_is_empty(run, tmp_path):
    # .btype is in the section (B's table), but A's table is headed .atype
    path = _copy(tmp_path, "operand: A\n        header: .atype", "operand: A\n        header: .btype")
    r = run("verbatim", path, "--document", DOC)
    assert r.code == 1 and "A.b1 header: in section 9.7.14.5.13, but not under its own table" in r.out
    assert "nearest: '.atype'" in r.out
    # an Elements cell read as empty where the document lists elements (a first row cannot be
    # null in a spec that loads: the field is made here)
    doc = document.read([(None, DOC)])
    listed = next(f for f in fields.read(SPEC) if f.label == "C.s32 row 1 elements")
    empty = dataclasses.replace(listed, kind=fields.EMPTY, source=SourceText("", SPEC, listed.source.origins[:1]))
    got = match.check(empty, doc)
    assert got.failed and got.why == "the document's cell in its row is not empty" and got.nearest[0] == "c0, c1, c2, c3"


def test_a_field_found_only_in_a_version_the_section_does_not_claim(run, tmp_path):
    path = _copy(tmp_path, 'versions: ["9.1", "9.2"]', 'versions: ["9.1"]')
    r = run("verbatim", path, "--document", os.path.join(DOC, "ptx-isa-9.2"))
    assert r.code == 1
    assert f"{_line_col(path, 'A vector expression containing four `.b32`')}: error: A.b1 row 1 fragment: found only " \
           f"in 9.2, not in a version its section claims (9.1) at " in r.out
    # the same folder named 9.1 on the command line: every field is found
    assert run("verbatim", path, "--document", "9.1=" + os.path.join(DOC, "ptx-isa-9.2")).code == 0


def test_every_one_character_change_of_a_digit_or_operator_is_reported():
    """What the normaliser takes off is markup and whitespace only: a digit, an operator, `+`,
    `%`, a subscript's index changed in any field is not found."""
    doc = document.read([(None, DOC)])
    checked = 0
    for f in fields.read(SPEC):
        if f.kind in (fields.EMPTY, fields.PART):  # nothing to change; a part of a field checked whole
            continue
        for k, ch in enumerate(f.text):
            if ch.isdigit() or ch in "+-*%&|<>=()_.,":
                new = f.text[:k] + ("7" if ch != "7" else "3") + f.text[k + 1:]
                g = dataclasses.replace(f, source=SourceText(new, f.source.file, f.source.origins))
                assert match.check(g, doc).failed, (f.label, new)
                dropped = f.text[:k] + f.text[k + 1:]
                g = dataclasses.replace(f, source=SourceText(dropped, f.source.file,
                                                             f.source.origins[:k] + f.source.origins[k + 1:]))
                assert match.check(g, doc).failed, (f.label, dropped)
                checked += 1
    assert checked > 250


# --- a caption is its figure's whole, a sentence runs to its end ----------------------------------------

CAPTION_A = "caption: MMA .m16n8k256 fragment layout for matrix A with `.b1` type."


@pytest.mark.parametrize("cut, rest", [
    ("caption: MMA .m16n8k256 fragment layout for matrix A", "with .b1 type."),  # at a word's end
    ("caption: MMA .m16n8k256 fragment layout for matrix A with `.b1` type", "."),  # its full stop
])
def test_a_caption_cut_short_is_not_the_caption(run, tmp_path, cut, rest):
    """`Figure 100 MMA ... matrix A` stands in the running text, followed by a space: found as a
    part of it, a caption cut at a word boundary passed."""
    path = _copy(tmp_path, CAPTION_A, cut)
    r = run("verbatim", path, "--document", DOC)
    assert r.code == 1, r.out + r.err
    at = _line_col(path, cut + "\n", len(cut))  # right after the caption: where the document goes on
    lines = r.out.splitlines()
    line = next(ln for ln in lines if ln.startswith(f"{at}: error: A.b1 caption: "))
    assert line.startswith(f"{at}: error: A.b1 caption: cut short: the document's caption of Figure 100 "
                           f"continues with {rest!r}; nearest: 'Figure 100 MMA .m16n8k256 fragment layout for "
                           f"matrix A with .b1 type.' at "), line
    assert lines[lines.index(line) + 1].endswith(f"matrix A{'{+ with .b1 type.+}' if rest != '.' else ' with .b1 type{+.+}'}'")
    assert "1 spec: 18 verbatim fields checked, 17 found" in r.out


@pytest.mark.parametrize("empty", ['""', "' '"])
def test_an_empty_caption_is_refused_at_its_value(tmp_path, empty):
    """`Figure 100` alone is the start of its caption: found as a part of the text, it passed."""
    path = _copy(tmp_path, CAPTION_A, f"caption: {empty}")
    got = match.check(next(f for f in fields.read(path) if f.label == "A.b1 caption"), document.read([(None, DOC)]))
    # at its closing quote: where the document's caption goes on
    assert got.failed and str(got.at) == _line_col(path, f"caption: {empty}", len(f"caption: {empty}") - 1)
    assert got.why == "an empty caption: the document's caption of Figure 100 is 'MMA .m16n8k256 fragment " \
                      "layout for matrix A with .b1 type.'"
    assert got.nearest[0] == "Figure 100 MMA .m16n8k256 fragment layout for matrix A with .b1 type."
    assert got.diff == "Figure 100{+ MMA .m16n8k256 fragment layout for matrix A with .b1 type.+}"


@pytest.mark.parametrize("spec, label, whole, cut", [
    ("m16n8k64.yaml", "same_as", "Matrix Fragments for mma.m16n8k16 with integer type.", "with integer type."),
    ("m16n8k64.yaml", "A.sp.i8 sparsity", "matrix A is structured sparse at a granularity of 2:4.",
     "at a granularity of 2:4."),
    # quoted from another section (9.7.15.6.2): sought there too, and cut short there
    ("m64nNk16.sp.yaml", "stated", "sparsity information for 16 rows of matrix A.", "for 16 rows of matrix A."),
])
def test_a_sentence_cut_short_is_not_the_documents_sentence(tmp_path, spec, label, whole, cut):
    """A same_as, sparsity or stated sentence cut at a word boundary stands in the running text,
    followed by a space: found as a part of it, it passed."""
    text = open(os.path.join(SPECS, spec), encoding="utf-8").read()
    assert text.count(whole) == 1, whole
    path = tmp_path / spec
    path.write_text(text.replace(whole, whole[:-len(cut)].rstrip()), encoding="utf-8")
    at = _line_col(str(path), whole[:-len(cut)].rstrip(), len(whole[:-len(cut)].rstrip()))
    field = next(f for f in fields.read(str(path)) if f.label == label and str(f.source.span(0)).split(":")[1] ==
                 at.split(":")[1])
    got = match.check(field, document.read([(None, DOCUMENT)]))
    assert got.failed and str(got.at) == at
    assert got.why == f"cut short: the document's sentence continues with {cut!r}"
    assert got.diff.endswith(f"{{+ {cut}+}}") and got.nearest[0].endswith(whole.replace("`", ""))


@pytest.mark.parametrize("text,want", [
    ("`.b32` registers", ".b32 registers"),
    ("[Figure 100](https://x/#a)[](https://x/#a \"Permalink to this image\")", "Figure 100"),
    ("**Figure 97** MMA `.m16n8k128`", "Figure 97 MMA .m16n8k128"),
    ("[Title `x`](https://x/#t)[\uf0c1](https://x/#t \"Permalink to this headline\")", "Title x"),
    ("![MMA .m16n8k128 layout](https://x/a.png) Figure 97", "Figure 97"),
    ("N = 8\\*i where<br>i = {1, 2}", "N = 8*i where i = {1, 2}"),
    ("shape *M x SFA_N*, of _the_ rows", "shape M x SFA_N, of the rows"),
    ("8*i and A * B and threadID_in_group * 2", "8*i and A * B and threadID_in_group * 2"),
    ("`a*b*c` and `x_y_z`", "a*b*c and x_y_z"),
    ("i % 4 + 8 >> 2 || i >= 64", "i % 4 + 8 >> 2 || i >= 64"),
    ("a0, a1, …, a126,\n   a127", "a0, a1, …, a126, a127"),
    ("rows 0–127", "rows 0–127"),
])
def test_the_normaliser_takes_off_markup_and_whitespace_only(text, want):
    assert nm.prose(text)[0] == want


def test_table_rows_keep_their_cells_apart_and_formulas_their_lines():
    assert nm.prose("| `.x1` | addr0–addr7 | – |")[0] == f"{nm.SEP}.x1{nm.SEP}addr0–addr7{nm.SEP}–{nm.SEP}"
    f = document.parse("d.md", "d.md", None, "intro\n\n| .atype | Fragment |\n| --- | --- |\n| `.b1` | A `x` |\n\n"
                                             "```\nrow =   a    for ai\n\n        b    otherwise\n```\n- item *one*\n")
    assert [(c.text, c.row, c.table) for c in f.cells] == [(".atype", 1, 1), ("Fragment", 1, 1), (".b1", 2, 1), ("A x", 2, 1)]
    assert [(ln.text, ln.block) for ln in f.lines if ln.block] == [("row = a for ai", 1), ("b otherwise", 1)]
    assert f.prose.endswith(f"{nm.GAP}item one{nm.GAP}")
    # the plain-text seed: a cell a line, an empty cell a lone pipe
    g = document.parse("s.txt", "s.txt", None, ".ctype |\nFragment | Elements |\n|---|---|---|\n.f32 |\nfour .f32 |\n|\n"
                                               ".f16 |\ntwo .f16x2 |\nThe layout")
    assert [(c.text, c.row) for c in g.cells] == [(".ctype", 1), ("Fragment", 1), ("Elements", 1), (".f32", 2),
                                                  ("four .f32", 2), ("", 2), (".f16", 2), ("two .f16x2", 2)]


def test_headings_give_sections_and_versions_come_from_the_files(tmp_path):
    doc = document.read([(None, DOC)])
    f = next(x for x in doc.files if x.rel.endswith("05-m16n8k256.md"))
    assert f.version == "9.2" and f.headings[0][:2] == ("9.7.14.5.13", "Matrix Fragments for mma.m16n8k256")
    assert f.regions("9.7.14.5.13") == [(0, len(f.text))] and f.regions("9.7.14.5.12") == []
    seed = next(x for x in doc.files if x.rel.startswith("seeds"))
    assert seed.version is None and [h[0] for h in seed.headings] == ["9.7.14.5.13", "9.7.14.5.13"]
    # the plain-text seed: a heading is a numbered line, or a number glued to the end of a line
    # where the copy lost a line break; "9.2 (CUDA 13.2)" opens prose, not a section
    plain = document.parse("p.txt", "p.txt", None, "9.7.14.5. Matrix Fragments\n9.7.14.5.8. Float\ncol = a\n"
                                                 "col = b for ci where i = {0,..,3}9.7.14.5.9. Integer type\n"
                                                 "9.2 (CUDA 13.2) is newer.\nint text\n")
    assert [(n, t) for n, t, _ in plain.headings] == [("9.7.14.5", "Matrix Fragments"), ("9.7.14.5.8", "Float"),
                                                       ("9.7.14.5.9", "Integer type")]
    (a, b), = plain.regions("9.7.14.5.8")
    assert plain.text[a:b].endswith("{0,..,3}") and plain.text[b:].startswith("9.7.14.5.9.")
    assert plain.regions("9.7.14.5") == [(0, len(plain.text))]


# --- the document folder is untrusted ------------------------------------------------------------------

def _hostile(tmp_path, make) -> str:
    folder = tmp_path / "doc"
    shutil.copytree(DOC, folder)
    make(folder)
    return str(folder)


def _refused(run, folder: str, where: str, message: str):
    r = run("verbatim", SPEC, "--document", folder)
    assert r.code == 3, r.out + r.err
    assert f"{where}: error: {message}" in r.err, r.err
    assert "Traceback" not in r.err + r.out and r.out == ""
    data = run("verbatim", SPEC, "--document", folder, "--format", "json")
    assert data.code == 3 and json.loads(data.out)["errors"][0]["location"] == where


def test_a_link_out_of_the_document_folder_is_refused(run, tmp_path):
    outside = tmp_path / "secret.md"
    outside.write_text("## 9.7.14.5.13. Matrix Fragments for `mma.m16n8k256`\n")
    folder = _hostile(tmp_path, lambda d: os.symlink(outside, d / "ptx-isa" / "linked.md"))
    _refused(run, folder, os.path.join(folder, "ptx-isa", "linked.md") + ":1:1",
             "a link out of the document folder: not followed")
    # a link to a folder outside, whatever its name
    folder2 = tmp_path / "doc2"
    shutil.copytree(DOC, folder2)
    os.symlink("/etc", folder2 / "etc")
    _refused(run, str(folder2), os.path.join(str(folder2), "etc") + ":1:1", "a link out of the document folder")


def test_a_link_inside_the_folder_is_passed_over(run, tmp_path):
    folder = _hostile(tmp_path, lambda d: os.symlink(d / "ptx-isa" / "9.7.14.5.13-m16n8k256.md", d / "again.md"))
    r = run("verbatim", SPEC, "--document", folder)
    assert r.code == 0 and "document: 4 files" in r.out


def test_a_huge_file_is_refused_unread(run, tmp_path):
    def make(d):
        with open(d / "huge.md", "wb") as fh:
            fh.truncate(document.MAX_FILE + 1)  # sparse: its size alone refuses it
    folder = _hostile(tmp_path, make)
    _refused(run, folder, os.path.join(folder, "huge.md") + ":1:1", f"file is larger than {document.MAX_FILE} bytes")


def test_a_fifo_is_refused_and_never_waited_on(run, tmp_path):
    folder = _hostile(tmp_path, lambda d: os.mkfifo(d / "pipe.md"))
    _refused(run, folder, os.path.join(folder, "pipe.md") + ":1:1", "not a regular file: it is a FIFO (named pipe)")


def test_a_file_that_is_not_utf8_is_refused_at_its_byte(run, tmp_path):
    folder = _hostile(tmp_path, lambda d: (d / "latin1.md").write_bytes(b"# 9.7.1. Title\n\nna\xefve text\n"))
    _refused(run, folder, os.path.join(folder, "latin1.md") + ":3:3", "not UTF-8 text: byte 0xef")
    folder = str(tmp_path / "nul")
    shutil.copytree(DOC, folder)
    with open(os.path.join(folder, "nul.txt"), "wb") as fh:
        fh.write(b"text\n\x00binary")
    _refused(run, folder, os.path.join(folder, "nul.txt") + ":2:1", "a NUL character: binary, not text")


def test_files_of_other_kinds_are_not_opened_and_the_bounds_hold(run, tmp_path, monkeypatch):
    def make(d):
        os.mkfifo(d / "pipe.bin")  # not .md or .txt: never opened, so never a hang
        (d / ".hidden.md").write_bytes(b"\xff")  # a dot name: passed over
    folder = _hostile(tmp_path, make)
    assert run("verbatim", SPEC, "--document", folder).code == 0
    monkeypatch.setattr(document, "MAX_FILES", 2)
    r = run("verbatim", SPEC, "--document", folder)
    assert r.code == 3 and "more than 2 document files: not read" in r.err
    monkeypatch.setattr(document, "MAX_FILES", 2000)
    monkeypatch.setattr(document, "MAX_TOTAL", 9000)
    r = run("verbatim", SPEC, "--document", folder)
    assert r.code == 3 and "the document's files may hold 9000 bytes in all" in r.err


def test_usage_and_spec_errors(run, tmp_path):
    r = run("verbatim", SPEC, "--document", str(tmp_path / "nowhere"))
    assert r.code == 2 and "--document: no such folder" in r.err
    r = run("verbatim", SPEC)
    assert r.code == 2
    (tmp_path / "empty").mkdir()
    r = run("verbatim", SPEC, "--document", str(tmp_path / "empty"))
    assert r.code == 3 and "no document text (*.md, *.txt)" in r.err
    bad = _copy(tmp_path, "shape: m16n8k256", "shape: m16n8k999")
    r = run("verbatim", bad, "--document", DOC)
    assert r.code == 3 and r.err.startswith(f"{bad}:") and "error:" in r.err


@pytest.mark.parametrize("spec, label, whole, cut", [
    ("m16n8k64.yaml", "same_as", "Matrix fragments for accumulators C and D", "Matrix"),
    ("m64nNk16.sp.yaml", "stated", "Each warp in the warpgroup provides sparsity information", "Each warp"),
])
def test_a_sentence_cut_at_its_start_is_not_the_documents_sentence(tmp_path, spec, label, whole, cut):
    """A sentence with its first words dropped stands in the running text, after a space: found
    as a part of it, it passed. It is refused at its first character, saying what the document's
    sentence begins with."""
    text = open(os.path.join(SPECS, spec), encoding="utf-8").read()
    assert text.count(whole) == 1, whole
    path = tmp_path / spec
    rest = whole[len(cut):].lstrip()
    path.write_text(text.replace(whole, rest), encoding="utf-8")
    field = next(f for f in fields.read(str(path)) if f.label == label and f.text.startswith(rest))
    got = match.check(field, document.read([(None, DOCUMENT)]))
    assert got.failed and str(got.at) == _line_col(str(path), rest)
    assert got.why.startswith(f"cut at its start: the document's sentence begins with {cut!r}"), got.why
    assert got.diff.startswith(f"{{+{cut} +}}")


def test_every_sentence_of_the_catalogue_cut_at_its_start_is_refused():
    """Each of the catalogue's sentences (same_as, sparsity, stated, operand texts) with one, two or
    three of its first words dropped is refused, and each stated table row without its first
    cell; each whole one is found."""
    doc = document.read([(None, DOCUMENT)])
    cuts = 0
    for name in sorted(os.listdir(SPECS)):
        if not name.endswith(".yaml") or name in ("relations.yaml", "untranscribed.yaml"):
            continue
        for f in fields.read(os.path.join(SPECS, name)):
            if f.kind != fields.PROSE or f.figure is not None:
                continue
            assert not match.check(f, doc).failed, f.label
            if nm.is_table_line(f.text):  # a row: its first cell dropped, the pipe before the next kept
                starts = [f.text.index("|", f.text.index("|") + 1)]
            else:
                words = f.text.split(" ")
                starts = [len(" ".join(words[:n])) + 1 for n in range(1, min(4, len(words)))]
            for k in starts:
                g = dataclasses.replace(f, source=SourceText(f.text[k:], f.source.file, f.source.origins[k:]))
                assert match.check(g, doc).failed, (name, f.label, g.text)
                cuts += 1
    assert cuts > 100


@pytest.mark.parametrize("text, at, ends", [
    ("the same data-type, e.g. both signed", "e.g.", False),  # 9.7.15.3's "e.g. both signed integer"
    ("one, i.e. the upper half", "i.e.", False),
    ("(cf. Figure 3) the rows", "cf.", False),
    ("of the same type. Both are", "type.", True),
    ("as in (the `.f16` type.) Then", "type.)", True),
])
def test_a_full_stop_that_ends_an_abbreviation_does_not_end_a_sentence(text, at, ends):
    from checker.verbatim import whole

    assert whole.ends_sentence(text, text.index(at) + len(at)) is ends


def test_a_heading_or_a_list_item_starts_a_block_and_e_g_starts_no_sentence_end():
    """What the sentence rules stand on, in the document reader: the text right under a heading
    (no blank line between) and a list item right under a caption start sentences of their own;
    and "e.g." at a paragraph's start ends no sentence."""
    from checker.verbatim import whole

    f = document.parse("/x/a.md", "a.md", "9.1", "## 9.9.9. A title\nThe first sentence. The second one.\n"
                                                   "**Figure 1 A caption.**\n- A list item sentence.\n")
    for sentence in ("The first sentence.", "A list item sentence."):
        k = f.prose.index(sentence)
        assert whole.starts_sentence(f.prose, k) and whole.ends_sentence(f.prose, k + len(sentence)), sentence
    assert not whole.starts_sentence(f.prose, f.prose.index("first sentence."))
    text = nm.GAP + "e.g. both signed integer"
    assert not whole.ends_sentence(text, len(nm.GAP + "e.g."))


def _spanned_instead_of_erratum(folder, name: str, fragment_cell: str, merged: str) -> str:
    """specs/NAME with the row of `fragment_cell` given `spanned_by: merged` in place of its
    empty cell's erratum."""
    import yaml

    path = os.path.join(folder, name)
    data = yaml.safe_load(open(path, encoding="utf-8"))
    rows = [r for s in data["sections"] for f in s.get("fragments") or [] for r in f["table"]
            if r["fragment"] == fragment_cell]
    assert len(rows) == 1 and rows[0]["elements"] is None
    rows[0].pop("errata", None)
    rows[0]["spanned_by"] = merged
    with open(path, "w", encoding="utf-8") as fh:
        yaml.safe_dump(data, fh, sort_keys=False, allow_unicode=True, width=1000)
    return path


def test_a_merged_cell_is_found_only_over_a_row_printed_without_its_own(run, copy, tmp_path):
    """`spanned_by` is found where 9.1 prints the row one cell short of its header, under the row
    whose own cell it is. m16n8k8's .f32 C row, which 9.1 prints with an empty cell of its own, is
    spanned by nothing, whatever list stands above it; and m64nNk32's .f32 D row is spanned by its
    own table's .s32 cell, not by another table's list."""
    shutil.copytree(SPECS, tmp_path / "mine")
    k8 = _spanned_instead_of_erratum(str(tmp_path / "mine"), "m16n8k8.yaml",
                                     "A vector expression of four `.f32` registers.", "c0, c1, c2, c3")
    r = run("verbatim", k8, "--document", DOCUMENT)
    assert r.code == 1
    assert "C.float row 2 spanned_by: no text of the section prints its row without an Elements cell of its own" in r.out
    s32 = ("d0, d1, d2, d3, …, dX, dY, dZ, dW  where `X = N/2  -  4`  `Y = N/2  -  3`  `Z = N/2  -  2`  "
           "`W = N/2  -  1`  `N` depends on .dtype, as described in the next column.")
    path, _, _ = copy("m64nNk32.yaml", f'      spanned_by: "{s32}"\n      miscellaneous: "`N',
                      '      spanned_by: "a0, a1, a2, a3, … , a14, a15"\n      miscellaneous: "`N')
    r = run("verbatim", path, "--document", DOCUMENT)
    assert r.code == 1 and "D.s32.float row 2 spanned_by: no text of the section prints" in r.out
    assert "A.i8 row 2 spanned_by" not in r.out  # A's own merged cell is still found


def test_a_row_a_merged_cell_spans_lists_its_elements_and_has_no_cell_of_its_own(run, copy):
    """Without `spanned_by` the row reads as an empty cell: elements-listed refuted at the row (an
    erratum would have to say so); with a cell of its own besides, the spec is refused."""
    path, line, _ = copy("m64nNk32.yaml", '''      spanned_by: "d0, d1, d2, d3, …, dX, dY, dZ, dW  where `X = N/2  -  4`  `Y = N/2  -  3`  `Z = N/2  -  2`  `W = N/2  -  1`  `N` depends on .dtype, as described in the next column."
      miscellaneous: null
''', '''      miscellaneous: null
''')
    r = run("prove", path)
    assert r.code == 1
    assert "the Elements cell of D.s32.float (table row 3) is empty: (empty)" in r.out
    path, line, _ = copy("m64nNk16.yaml", "      elements: null\n      spanned_by:", "      elements: d0\n      spanned_by:")
    r = run("validate", path)
    assert r.code == 3 and f"{path}:{line + 1}:7: error: this row prints its own Elements cell (elements)" in r.out + r.err
