"""Every figure the document prints is transcribed by a spec or listed, with its reason, in
specs/untranscribed.yaml (checker/verbatim/complete.py): the direction the field check cannot see,
so that deleting a fragment or narrowing a section's versions fails `checker verbatim`."""
import json
import os
import shutil

import pytest

from conftest import DOCUMENT, SPECS

from checker.verbatim import complete, document, omitted

LIST = os.path.join(SPECS, "untranscribed.yaml")


def _copy(tmp_path, edits: dict) -> str:
    """specs/ copied, with `{file: (old, new)}` applied (each `old` found once)."""
    folder = tmp_path / "specs"
    shutil.copytree(SPECS, folder)
    for name, (old, new) in edits.items():
        text = (folder / name).read_text(encoding="utf-8")
        assert text.count(old) == 1, (name, old)
        (folder / name).write_text(text.replace(old, new), encoding="utf-8")
    return str(folder)


def _at(path: str, needle: str) -> str:
    text = open(path, encoding="utf-8").read()
    at = text.index(needle)
    return f"{path}:{text.count(chr(10), 0, at) + 1}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"


def test_the_catalogue_transcribes_or_lists_every_figure_of_the_document(run):
    r = run("verbatim", SPECS, "--document", DOCUMENT, "--format", "json")
    assert r.code == 0, r.out[-2000:] + r.err
    figures = json.loads(r.out)["figures"]
    assert figures["scope"] == "document" and figures["neither"] == 0
    assert figures["printed"] == figures["transcribed"] + figures["listed"]
    assert figures["transcribed"] > 150 and figures["listed"] > 50, figures
    readme = " ".join(open(os.path.join(SPECS, "..", "README.md"), encoding="utf-8").read().split())
    assert (f"holds that every other figure is transcribed: {figures['transcribed']} of the {figures['printed']} "
            f"figure captions the two versions print (each counted once per version), {figures['listed']} listed") in readme
    text = run("verbatim", SPECS, "--document", DOCUMENT).out
    assert (f"figures of every section of the document, in the versions known: {figures['printed']} printed, "
            f"{figures['transcribed']} transcribed, {figures['listed']} listed in {LIST}, 0 neither") in text


def test_a_deleted_fragment_fails_at_its_section(run, tmp_path):
    # m16n8k16's A.f64 fragment (Figure 80), cut out whole
    text = open(os.path.join(SPECS, "m16n8k16.yaml"), encoding="utf-8").read()
    start = text.index("      - id: A.f64")
    end = text.index("      - id: B.f16")
    folder = _copy(tmp_path, {"m16n8k16.yaml": (text[start:end], "")})
    r = run("verbatim", folder, "--document", DOCUMENT)
    assert r.code == 1
    spec = os.path.join(folder, "m16n8k16.yaml")
    errors = [ln for ln in r.out.splitlines() if ": error: " in ln]
    # its figure and its table's one row, each in 9.1 and 9.2
    assert len(errors) == 4 and sum("prints a fragment table row" in ln for ln in errors) == 2, errors
    at = _at(spec, '"9.7.14.5.8"')
    for version in ("9.1", "9.2"):
        assert any(ln.startswith(f"{at}: error: Figure 80 of section 9.7.14.5.8 in PTX ISA {version} (printed at ")
                   and "no fragment, layout or figures-only entry of its section names it" in ln for ln in errors)
    # the spec given alone: its own sections are in scope, the list beside it read
    r = run("verbatim", spec, "--document", DOCUMENT)
    assert r.code == 1 and "Figure 80 of section 9.7.14.5.8" in r.out
    assert f"list it with its reason in {os.path.join(folder, 'untranscribed.yaml')}" in r.out
    # in a folder of its own, with no list: the same, and the message says where a list would go
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(spec, alone / "m16n8k16.yaml")
    r = run("verbatim", str(alone / "m16n8k16.yaml"), "--document", DOCUMENT)
    assert r.code == 1 and "Figure 80 of section 9.7.14.5.8" in r.out and "an untranscribed.yaml beside the specs" in r.out


def test_a_spec_given_alone_counts_what_the_specs_beside_it_transcribe_and_the_list_beside_it(run):
    # ldmatrix's section is transcribed by three specs; m16n8k64's metadata figures are listed
    for name in ("ldmatrix.m8n16.yaml", "m16n8k64.yaml", "m64nNk16.sp.yaml"):
        r = run("verbatim", os.path.join(SPECS, name), "--document", DOCUMENT)
        assert r.code == 0, r.out[-1500:]
        assert "figures of the sections the specs given transcribe, in the versions known: " in r.out
        assert r.out.splitlines()[-2].endswith(" 0 neither")


def test_a_version_dropped_from_a_section_fails_at_its_versions(run, tmp_path):
    old = '''        figures: [Figure 83]'''
    text = open(os.path.join(SPECS, "m16n8k16.yaml"), encoding="utf-8").read()
    assert old in text
    folder = _copy(tmp_path, {"m16n8k16.yaml": ('''    versions: ["9.1", "9.2"]
  - section: "9.7.14.5.9"''', '''    versions: ["9.1"]
  - section: "9.7.14.5.9"''')})
    r = run("verbatim", folder, "--document", DOCUMENT)
    assert r.code == 1
    spec = os.path.join(folder, "m16n8k16.yaml")
    errors = [ln for ln in r.out.splitlines() if ": error: " in ln]
    assert {ln.split(": error: Figure ")[1].split(" ")[0] for ln in errors} == {"79", "80", "81", "82", "83"}
    line = open(spec, encoding="utf-8").read().split('    versions: ["9.1"]\n')[0].count("\n") + 1
    assert all(ln.startswith(f"{spec}:{line}:15: error: ") and "in PTX ISA 9.2" in ln and
               "its section's `versions` name PTX ISA 9.1 only" in ln for ln in errors), errors


def test_a_deleted_spec_fails_at_the_document(run, tmp_path):
    folder = _copy(tmp_path, {})
    os.remove(os.path.join(folder, "m8n8k128.yaml"))  # nothing else reads it
    r = run("verbatim", folder, "--document", DOCUMENT)
    assert r.code == 1
    errors = [ln for ln in r.out.splitlines() if ": error: " in ln]
    assert {ln.split("Figure ")[1].split(" ")[0] for ln in errors} == {"62", "63", "64"}
    assert len(errors) == 6 and all("no spec transcribes section 9.7.14.5.5" in ln and ln.startswith(DOCUMENT)
                                    for ln in errors), errors


def test_a_listed_figure_a_spec_transcribes_is_stale(run, tmp_path):
    folder = _copy(tmp_path, {"untranscribed.yaml": ('"9.7.14.6.1": [Figure 111,', '"9.7.14.5.8": [Figure 79]\n      "9.7.14.6.1": [Figure 111,')})
    r = run("verbatim", folder, "--document", DOCUMENT)
    assert r.code == 1
    at = _at(os.path.join(folder, "untranscribed.yaml"), "Figure 79")
    errors = [ln for ln in r.out.splitlines() if ": error: " in ln]
    assert len(errors) == 2 and all(ln.startswith(f"{at}: error: Figure 79 of section 9.7.14.5.8 in PTX ISA 9.") and
                                    "is listed as untranscribed, but " in ln and "m16n8k16.yaml:" in ln and
                                    ln.endswith("transcribes it: take it off the list") for ln in errors), errors


def test_a_listed_figure_the_document_does_not_print_is_stale(run, tmp_path):
    folder = _copy(tmp_path, {"untranscribed.yaml": ("Figure 116, Figure 117]", "Figure 116, Figure 117, Figure 118]")})
    r = run("verbatim", folder, "--document", DOCUMENT)
    assert r.code == 1
    at = _at(os.path.join(folder, "untranscribed.yaml"), "Figure 118")
    assert (f"{at}: error: the document prints no Figure 118 in section 9.7.14.6.1 of PTX ISA 9.1 "
            "(the figures it prints there: 111, 112, 113, 114, 115, 116, 117)") in r.out
    # 9.2 prints Figure 147's name but no caption: listing it for 9.2 is refused the same way
    folder = _copy(tmp_path / "b", {"untranscribed.yaml": ('''  - versions: ["9.1"]
    figures:
      "9.7.14.6.2.8": [Figure 147]''', '''  - versions: ["9.1", "9.2"]
    figures:
      "9.7.14.6.2.8": [Figure 147]''')})
    r = run("verbatim", folder, "--document", DOCUMENT)
    assert r.code == 1 and "the document prints no Figure 147 in section 9.7.14.6.2.8 of PTX ISA 9.2 " \
        "(the figures it prints there: 140, 141, 142, 143, 144, 145, 146)" in r.out


def test_an_unlisted_figure_fails_when_its_entry_is_dropped(run, tmp_path):
    folder = _copy(tmp_path, {"untranscribed.yaml": ('      "9.7.14.6.2.1": [Figure 119]\n', "")})
    r = run("verbatim", folder, "--document", DOCUMENT)
    assert r.code == 1
    errors = [ln for ln in r.out.splitlines() if ": error: " in ln]
    assert len(errors) == 2 and all("Figure 119 of section 9.7.14.6.2.1" in ln for ln in errors), errors
    assert "0 neither" not in r.out and "2 neither" in r.out


@pytest.mark.parametrize("old,new,expect", [
    ("untranscribed:\n", "listed:\n", "holds one key, `untranscribed`"),
    ("    reason: >-\n      Sparse matrix storage", "    why: >-\n      Sparse matrix storage",
     "an entry has the keys versions, figures, reason; found: versions, figures, why"),
    ('"9.7.14.6.1": [Figure 111,', '"sparse storage": [Figure 111,', "'sparse storage' is no section number"),
    ('"9.7.14.6.1": [Figure 111,', '"9.7.14.6.1": [Fig 111,', "figures of 9.7.14.6.1: each is Figure N; found 'Fig 111'"),
    ('"9.7.14.6.1": [Figure 111, Figure 112, Figure 113, Figure 114, Figure 115, Figure 116, Figure 117]',
     '"9.7.14.6.1": []', "a list of at least one"),
    ('''  - versions: ["9.1", "9.2"]
    figures:
      "9.7.14.6.1"''', '''  - versions: ["9"]
    figures:
      "9.7.14.6.1"''', "versions: each is a version such as 9.1; found '9'"),
    ("Figure 116, Figure 117]", "Figure 116, Figure 116]", "Figure 116 of section 9.7.14.6.1 in PTX ISA 9.1 is listed twice"),
])
def test_a_malformed_list_is_a_located_error(run, tmp_path, old, new, expect):
    folder = _copy(tmp_path, {"untranscribed.yaml": (old, new)})
    r = run("verbatim", folder, "--document", DOCUMENT)
    assert r.code == 3, r.out[-500:] + r.err
    [line] = [ln for ln in r.err.splitlines() if "untranscribed.yaml:" in ln]
    assert expect in line and line.startswith(os.path.join(folder, "untranscribed.yaml") + ":"), line
    assert "figures: not checked (a spec or an untranscribed list did not load)" in r.out


def test_a_reason_must_say_why(run, tmp_path):
    text = open(LIST, encoding="utf-8").read()
    start = text.index("      mma with block scaling")
    end = text.index("  - versions:", start)
    folder = _copy(tmp_path, {"untranscribed.yaml": (text[start:end], "      later\n")})
    r = run("verbatim", folder, "--document", DOCUMENT)
    assert r.code == 3 and "reason: why no spec transcribes these figures, in words" in r.err


def test_the_list_is_no_spec(run):
    r = run("prove", LIST)
    assert r.code == 2 and "it is no spec: `checker verbatim specs/ --document document/` reads it" in r.err
    # a folder, or a list of files that holds it, passes over it
    r = run("validate", SPECS, "--format", "json")
    assert r.code == 0 and not any(x.get("spec", "").endswith("untranscribed.yaml") for x in json.loads(r.out))
    r = run("validate", LIST, os.path.join(SPECS, "m8n8k4.yaml"))
    assert r.code == 0 and "untranscribed" not in r.out + r.err


def test_captions_are_told_from_prose(tmp_path):
    folder = tmp_path / "doc"
    folder.mkdir()
    (folder / "a.md").write_text(
        "<!-- PTX ISA 9.1 -->\n# 9.7.1. Section\n\n"
        "**Figure 1 A caption in bold.**\n\n"
        "**Figure 2** A caption in 9.2's style.\n\n"
        "*Figure 3 A caption in italics.*\n\n"
        "Figure 4 shows a prose line that opens with a figure's name.\n"
        "Figure 5, with a comma, is prose too.\n\n"
        "```\n**Figure 6 inside a code block**\n```\n"
        "## 9.7.1.1. Sub\n\n**Figure 7 In the subsection.**\n", encoding="utf-8")
    (folder / "b.txt").write_text("9.7.2. Plain\nFigure 8 A plain-text caption.\nFigure 9, prose.\n", encoding="utf-8")
    (folder / "c.txt").write_text("Figure 10 A caption in a file of no version.\n", encoding="utf-8")
    doc = document.read([(None, str(folder))])
    got = sorted((p.section, p.version, p.figure) for p in complete.printed(doc))
    assert got == [("9.7.1", "9.1", 1), ("9.7.1", "9.1", 2), ("9.7.1", "9.1", 3), ("9.7.1.1", "9.1", 7)], got
    doc = document.read([("9.2", str(folder))])
    got = sorted((p.section, p.figure) for p in complete.printed(doc))
    assert ("9.7.2", 8) in got and 9 not in {f for _, f in got} and 4 not in {f for _, f in got}, got


def test_the_report_lists_them_with_their_reasons_and_escapes_the_reasons(run):
    from checker.report import doc, html, markdown
    from checker.report.pages import _untranscribed

    groups = complete.groups(LIST)
    assert ("9.7.14.3", (42,)) in groups[0].figures and groups[0].versions == ("9.1", "9.2")
    blocks = _untranscribed(groups)
    page = doc.Page("README", "t", blocks)
    md = markdown.render(page)
    assert "## Figures no spec transcribes" in md and "| 42 | §9.7.14.3 | 9.1, 9.2 | mma with block scaling" in md
    assert "The list holds 72 figures" in md
    # a reason is text from a pull request: raw HTML and a script link stay text in both renderings
    hostile = [complete.Group(("9.1",), (("9.7.1", (1,)),), "see <script>alert(1)</script> and [x](javascript:alert(1)) | z")]
    page = doc.Page("README", "t", _untranscribed(hostile))
    out = html.render([page], "t")["index.html"]
    assert "<script>alert(1)" not in out and 'href="javascript' not in out
    md = markdown.render(page)
    assert "\\<script>" in md and "](javascript" not in md.replace("\\]", "")
    assert _untranscribed([]) == []


def test_a_spec_beside_that_does_not_load_leaves_the_figures_unchecked_and_says_so(run, tmp_path):
    folder = tmp_path / "specs"
    folder.mkdir()
    shutil.copy(os.path.join(SPECS, "m8n8k4.yaml"), folder / "m8n8k4.yaml")
    (folder / "m8n8k16.yaml").write_text("sections: [unclosed\n", encoding="utf-8")
    r = run("verbatim", str(folder / "m8n8k4.yaml"), "--document", DOCUMENT)
    assert r.code == 0, r.out[-800:] + r.err  # the spec given is whole; the one beside it is not checked here
    assert f"figures: not checked ({folder / 'm8n8k16.yaml'}, beside the specs given, does not load)" in r.out


def test_the_document_s_same_as_sentences_are_read_in_every_section_and_version():
    doc = document.read([(None, DOCUMENT)])
    got = {(s.section, s.version): s.text for s in omitted.sentences(doc)}
    # the sparse mma sections (9.7.14.6.2.1-8) and the sparse wgmma ones (9.7.15.6.2.1-3), in both versions
    assert len(got) == 22 and {v for _, v in got} == {"9.1", "9.2"}, sorted(got)
    assert got[("9.7.14.6.2.4", "9.1")] == got[("9.7.14.6.2.4", "9.2")] == "multiplicand B and accumulators C and D"
    assert got[("9.7.14.6.2.8", "9.2")] == "accumulators C and D"
    assert got[("9.7.15.6.2.2", "9.1")] == "accumulator D"


def _document(tmp_path, body: str):
    """A document of one 9.1 file whose section 9.7.1 holds `body` (from line 4)."""
    folder = tmp_path / "doc"
    folder.mkdir()
    (folder / "a.md").write_text("<!-- PTX ISA 9.1 -->\n# 9.7.1. Section\n\n" + body, encoding="utf-8")
    return document.read([(None, str(folder))])


def test_same_as_sentences_are_told_from_prose_and_code(tmp_path):
    doc = _document(tmp_path, (
        "- Matrix fragments for accumulators C and D are the same as in case of\n  Matrix Fragments for x.\n"
        "Matrix fragments for `multiplicand B` are the same as in case of y.\n"
        "```\nMatrix fragments for A are the same as in case of z.\n```\n"
        "The matrix fragments for A are the same as in a sentence that does not open with them.\n"
        "`.dtype` must be the same as `.ctype`.\n"))
    got = sorted((s.section, s.version, s.text, s.span.line) for s in omitted.sentences(doc))
    assert got == [("9.7.1", "9.1", "accumulators C and D", 4), ("9.7.1", "9.1", "multiplicand B", 6)], got


def test_a_deleted_same_as_entry_fails_at_its_section(run, tmp_path):
    # sparse m16n8k8's sentence that B and C are m16n8k8's: deleted, its operands had no fragment
    # and every check still passed (its own field check went with it)
    text = open(os.path.join(SPECS, "m16n8k8.yaml"), encoding="utf-8").read()
    start = text.index("  same_as:\n  - operands: [B, C]")
    end = text.index("  fragments:\n  - id: A.sp.tf32")
    folder = _copy(tmp_path, {"m16n8k8.yaml": (text[start:end], "")})
    spec = os.path.join(folder, "m16n8k8.yaml")
    r = run("verbatim", folder, "--document", DOCUMENT)
    assert r.code == 1, r.out[-1500:]
    errors = [ln for ln in r.out.splitlines() if ": error: " in ln]
    assert len(errors) == 2, errors  # 9.1 and 9.2
    at = _at(spec, "9.7.14.6.2.4\n")
    for version in ("9.1", "9.2"):
        assert any(ln.startswith(f"{at}: error: section 9.7.14.6.2.4 in PTX ISA {version} says that the fragments "
                                 "for multiplicand B and accumulators C and D are the same as another shape's (printed at ")
                   and "no same_as entry of the section transcribes it" in ln for ln in errors), errors
    # the spec given alone: its own sections are in scope
    r = run("verbatim", spec, "--document", DOCUMENT, "--format", "json")
    assert r.code == 1 and sum("no same_as entry" in e["message"] for e in json.loads(r.out)["errors"]) == 2
    # an entry whose sentence names other operands does not stand for it either (its own field check
    # fails too: the document prints no such sentence there)
    folder = _copy(tmp_path / "other", {"m16n8k8.yaml": (
        "Matrix fragments for multiplicand B and accumulators C and D are the same as in case of Matrix Fragments "
        "for mma.m16n8k8 for", "Matrix fragments for accumulators C and D are the same as in case of Matrix Fragments "
        "for mma.m16n8k8 for")})
    r = run("verbatim", folder, "--document", DOCUMENT)
    assert r.code == 1 and sum("no same_as entry of the section transcribes it" in ln for ln in r.out.splitlines()) == 2


def test_a_deleted_layout_or_form_fails_at_its_section(run, tmp_path):
    # ldmatrix .m8n16's three layouts all transcribe Figure 106: deleting one, or one of its forms,
    # left every figure transcribed and passed
    text = open(os.path.join(SPECS, "ldmatrix.m8n16.yaml"), encoding="utf-8").read()
    start = text.index("      - id: r.x1\n")
    end = text.index("      - id: r.x2\n")
    forms = ["ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32", "ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b4x16_p64"]
    for name, edit in (("layout", (text[start:end], "")), ("form", (f"          - {forms[0]}\n", ""))):
        folder = _copy(tmp_path / name, {"ldmatrix.m8n16.yaml": edit})
        spec = os.path.join(folder, "ldmatrix.m8n16.yaml")
        assert run("validate", spec).code == 0  # nothing in the file itself is wrong
        r = run("verbatim", spec, "--document", DOCUMENT)
        errors = [ln for ln in r.out.splitlines() if ": error: " in ln]
        gone = forms if name == "layout" else forms[:1]
        assert r.code == 1 and len(errors) == len(gone), errors
        at = _at(spec, '"9.7.14.5.15"')
        for form in gone:
            assert f"{at}: error: the PTX ISA defines {form} in section 9.7.14.5.15 (checker/report/isa-movement.yaml), " \
                   "and no layout of the section names it in its forms" in r.out, r.out
        assert run("verbatim", folder, "--document", DOCUMENT).code == 1


def test_fragment_table_rows_are_read_from_tables_with_a_fragment_and_an_elements_column(tmp_path):
    doc = _document(tmp_path, (
        "| .atype | Fragment | Elements (low to high) |\n| --- | --- | --- |\n"
        "| `.f16` | A vector expression of two `.f16x2` registers. | a0, a1 |\n"
        "| `.f64` | One `.f64` register. | |\n\n"
        "| .shape | Matrix |\n| --- | --- |\n| .m8n8 | 8x8 |\n"))
    got = [(r.section, r.version, r.text, r.span.line) for r in omitted.rows(doc)]
    assert got == [("9.7.1", "9.1", "A vector expression of two .f16x2 registers.", 6),
                   ("9.7.1", "9.1", "One .f64 register.", 7)], got


def test_every_fragment_table_row_of_a_transcribed_section_is_transcribed():
    doc = document.read([(None, DOCUMENT)])
    got = omitted.rows(doc)
    transcribed = {str(s.number) for p in os.listdir(SPECS) if p.endswith(".yaml") and p != "untranscribed.yaml"
                   and p != "relations.yaml" for s in complete.claims(os.path.join(SPECS, p))[1]}
    mine = [r for r in got if r.section in transcribed]
    # every row of A, B and C/D tables in both versions, and tcgen05's in 9.2 (a layout's operand_text)
    assert len(mine) > 185 and {r.version for r in mine} == {"9.1", "9.2"}, len(mine)
    assert {r.section for r in got} - transcribed == set()
    assert {f"9.7.16.2.3.1.{k}" for k in range(1, 6)} <= {r.section for r in mine}


def test_a_deleted_table_row_fails_at_its_section(run, tmp_path):
    # m16n8k16's C.float row for .f64: deleted, the spec no longer had .f64 and every check passed
    row = ("          - types: [f64]\n            fragment: A vector expression containing four .f64 registers "
           "containing .f64 elements from the matrix C (or D).\n            registers: {count: 4, kind: f64}\n"
           "            elements: c0, c1, c2, c3\n")
    folder = _copy(tmp_path, {"m16n8k16.yaml": (row, "")})
    spec = os.path.join(folder, "m16n8k16.yaml")
    r = run("verbatim", spec, "--document", DOCUMENT)
    errors = [ln for ln in r.out.splitlines() if ": error: " in ln]
    assert r.code == 1 and len(errors) == 2, errors  # 9.1 and 9.2
    at = _at(spec, '"9.7.14.5.8"')
    for version in ("9.1", "9.2"):
        assert any(ln.startswith(f"{at}: error: section 9.7.14.5.8 in PTX ISA {version} prints a fragment table row "
                                 "'A vector expression containing four .f64 registers containing .f64 elements from the "
                                 "matrix C (or D).' (at ") and "that no table of the section's fragments transcribes" in ln
                   for ln in errors), errors
