"""Two versions of the document: every spec section names the PTX ISA versions it was checked
against, and its text is checked against each, word for word.

9.1 is checked character for character by test_specs.py (document/seeds and document/ptx-isa).
9.2 (document/ptx-isa-9.2) comes from another Markdown conversion of NVIDIA's HTML, which marks up
the same words differently (backticks, bold figure numbers, links, column padding), so the
comparison here is of the words: markup and runs of whitespace are normalised on both sides,
and nothing else. A word that differs is reported, never hidden."""
import glob
import os
import re

from conftest import DOCUMENT, SPECS

from checker.spec.load import load_spec
from test_specs import once

SPEC_FILES = sorted(glob.glob(os.path.join(SPECS, "m[0-9]*.yaml")))  # ldmatrix & co.: tests/unit/test_ldmatrix.py
V92 = os.path.join(DOCUMENT, "ptx-isa-9.2")


def _v92():
    return {f: open(f, encoding="utf-8").read() for f in sorted(glob.glob(os.path.join(V92, "**", "*.md"), recursive=True))}


def words(text: str) -> str:
    """Markup and runs of whitespace normalised: links to their text, code and bold marks, 9.2's
    line breaks inside table cells (`<br>`) and its escaped asterisks (`8\\*i`)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.replace("<br>", " ").replace("\\*", "*")
    return " ".join(text.replace("`", "").replace("**", "").split())


def section_text(texts: dict, number: str):
    """(title, text) of a numbered section of 9.2: from its heading to the next heading of its
    level or above; None where no file has it."""
    head = re.compile(r"^(#+) " + re.escape(number) + r"\.? (.*)$", re.M)
    for text in texts.values():
        m = head.search(text)
        if m:
            rest = text[m.end():]
            nxt = re.search(r"^#{1,%d} \d+(\.\d+)+\.? " % len(m.group(1)), rest, re.M)
            return m.group(2), text[m.start():m.end() + (nxt.start() if nxt else len(rest))]
    return None


def _cells(text: str) -> list:
    """Every table row of a Markdown text as its list of cells, words only."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("|") and line.endswith("|") and not re.fullmatch(r"[|\s:-]+", line):
            rows.append([words(c) for c in line[1:-1].split("|")])
    return rows


def differences(path: str, sections, texts: dict) -> list:
    """What of a spec's sections is not in 9.2's words: (path, section, what, text) tuples."""
    out = []
    for sec in sections:
        if "9.2" not in sec.versions:
            continue
        found = section_text(texts, sec.section)
        if found is None:
            out.append((path, sec.section, "section", "no section of this number in 9.2"))
            continue
        title, text = found
        body, rows = words(text), _cells(text)
        blocks = [[" ".join(line.split()) for line in b.splitlines() if line.strip()]
                  for b in re.findall(r"```[^\n]*\n(.*?)```", text, re.S)]
        if words(sec.title) != words(title):
            out.append((path, sec.section, "title", sec.title))
        out += [(path, sec.section, "same_as", s.printed) for s in sec.same_as if words(s.printed) not in body]
        for f in once(sec.fragments + sec.figures_only):
            if f.formula is not None and f.figure_reading is None:  # a figure's reading is not the document's text
                lines = [" ".join(line.split()) for line in f.formula.text.splitlines() if line.strip()]
                if lines not in blocks:
                    out.append((path, f.id, "formula", f.formula.text))
            for fig, cap in zip(f.figures, re.split(r" / (?=(?:Sparse )?MMA )", f.caption or "")):
                if words(f"{fig} {cap}") not in body:
                    out.append((path, f.id, "caption", cap))
            for k, r in enumerate(f.table, 1):
                declared = next((d for d in sec.differences if (d.version, d.fragment, d.row) == ("9.2", f.id, k)), None)
                cell = words(declared.fragment_cell) if declared else words(r.fragment)
                want = (words(declared.elements_cell) if declared else
                        words(r.elements.text) if r.elements is not None else words(r.elements_note or ""))
                row = next((cells for cells in rows if cell in cells), None)
                if row is None:
                    out.append((path, f.id, "fragment", declared.fragment_cell if declared else r.fragment))
                    continue
                listed = row[2] if len(row) >= 3 else ""  # types, Fragment, Elements[, Miscellaneous]
                if listed != want:
                    out.append((path, f.id, "elements", f"{want!r} where 9.2 prints {listed!r}"))
                misc = row[3] if len(row) >= 4 else None
                if (misc or r.miscellaneous) and misc != words(r.miscellaneous or ""):
                    out.append((path, f.id, "miscellaneous", f"{r.miscellaneous!r} where 9.2 prints {misc!r}"))
        for d in sec.differences:  # a declared difference names a row that exists
            if not any(f.id == d.fragment and 1 <= d.row <= len(f.table) for f in sec.fragments + sec.figures_only):
                out.append((path, d.fragment, "difference", f"no table row {d.row} of {d.fragment} here"))
    return out


def test_every_section_names_the_versions_it_was_checked_against():
    for f in SPEC_FILES:
        for sec in load_spec(f).sections:
            assert sec.versions == ("9.1", "9.2"), (f, sec.section)


def test_every_section_reads_word_for_word_in_9_2():
    texts = _v92()
    assert [d for f in SPEC_FILES for d in differences(f, load_spec(f).sections, texts)] == []


def test_a_word_that_differs_from_9_2_is_reported():
    """The comparison can fail: a changed word in a formula, a caption and an element list, and an
    Elements cell read as empty where 9.2 prints a list, are each reported."""
    import dataclasses

    texts = _v92()
    path = os.path.join(SPECS, "m16n8k256.yaml")
    sec = load_spec(path).sections[0]
    a = sec.fragments[0]
    changed = dataclasses.replace(a, caption=a.caption.replace("matrix A", "matrix B"),
                                  formula=dataclasses.replace(a.formula, text=a.formula.text.replace("* 32", "* 16")))
    got = differences(path, [dataclasses.replace(sec, fragments=(changed,) + sec.fragments[1:])], texts)
    assert [(what, fid) for _, fid, what, _ in got] == [("formula", "A.b1"), ("caption", "A.b1")]
    row = dataclasses.replace(a.table[0], elements=None)
    got = differences(path, [dataclasses.replace(sec, fragments=(dataclasses.replace(a, table=(row,)),))], texts)
    assert [(what, fid) for _, fid, what, _ in got] == [("elements", "A.b1")]


def test_the_differences_9_2_prints_are_declared_and_needed():
    """The 8 mma.sp A tables: 9.2 prints the Elements sentence in the Fragment cell (the 3 sparse
    wgmma As: a full stop after the list and the sentence). Each is
    declared in its section; without the declaration the row is reported, so none is hidden."""
    import dataclasses

    texts = _v92()
    declared = [(f, sec) for f in SPEC_FILES for sec in load_spec(f).sections if sec.differences]
    assert sum(len(sec.differences) for _, sec in declared) == 8 + 3  # and the 3 sparse wgmma As
    for f, sec in declared:
        got = differences(f, [dataclasses.replace(sec, differences=())], texts)
        # the Fragment cell where 9.2 moves words into it; the Elements cell where only it differs
        want = {(d.fragment, "fragment" if words(d.fragment_cell) != words(r.fragment) else "elements")
                for d in sec.differences for fr in sec.fragments if fr.id == d.fragment for r in fr.table[d.row - 1:d.row]}
        assert {(fid, what) for _, fid, what, _ in got} == want and len(want) == len(sec.differences)


def test_every_erratum_is_printed_in_every_version_it_names():
    """What `checker errata` says of versions: each erratum's printed text is in each version's
    text of its section (an empty cell is empty there). 9.1 holds it by the verbatim tests, since
    errata are applied on top of the document's text; 9.2 is read here."""
    texts = _v92()
    checked = 0
    for f in SPEC_FILES:
        for sec in load_spec(f).sections:
            title, text = section_text(texts, sec.section)
            body, rows = words(text), _cells(text)
            errata = [(None, e) for e in sec.errata] + [(None, e) for s in sec.same_as for e in s.errata]
            errata += [(fr, e) for fr in once(sec.fragments + sec.figures_only) for e in fr.errata]
            for fr, e in errata:
                if e.printed == "":
                    row = next(cells for cells in rows if words(fr.table[e.row].fragment) in cells)
                    assert len(row) < 3 or row[2] == "", (f, fr.id, e.span, row)
                else:
                    assert words(e.printed) in body, (f, e.span, e.printed)
                checked += 1
    assert checked == 25 + 6  # 6 of the wgmma tables and sentences


def test_a_difference_declared_twice_for_one_row_is_refused(copy, run):
    """One version prints a row one way: a second declaration of the same row (a copy, or a
    contradiction whose two cells the section might each print somewhere) was loaded and both were
    sought, passing verbatim. It is refused at the second's row, naming the first's line."""
    with open(os.path.join(SPECS, "m16n8k128.yaml"), encoding="utf-8") as fh:
        text = fh.read()
    start = text.index("  differences:\n") + len("  differences:\n")
    block = text[start:text.index("\n", text.index("    note: 9.2", start)) + 1]
    path, line, _ = copy("m16n8k128.yaml", block, block + block)
    r = run("validate", path)
    first = line + block.split("\n").index('    row: 1')
    second = first + block.count("\n")
    assert r.code == 3 and f"{path}:{second}:10: error: A.sp.i4 row 1 in 9.2 is given twice (first at line {first})" \
        in r.err, r.err
