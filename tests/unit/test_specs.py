"""The seed specs: every fragment proved, every erratum confirmed, and the faithful printed
text alone fails where the erratum says, at the line it is on."""
import glob
import json
import re
import os

import pytest

from conftest import DOCUMENT, SPECS

from checker.spec.load import load_spec
from checker.spec.validation import schema

SPEC_FILES = sorted(glob.glob(os.path.join(SPECS, "m[0-9]*.yaml")))  # mma, mma.sp and wgmma: one file per shape
# ldmatrix, stmatrix, movmatrix (file = instruction.shape): their words are checked in test_ldmatrix.py
MOVEMENT_FILES = sorted(p for x in ("ldmatrix", "stmatrix", "movmatrix") for p in glob.glob(os.path.join(SPECS, x + ".*.yaml")))
# tcgen05.ld / tcgen05.st (file = tcgen05.shape): their atoms and readings are checked in test_tmem.py
TCGEN05_FILES = sorted(glob.glob(os.path.join(SPECS, "tcgen05.*.yaml")))
# mma with block scaling (file = mma.shape.block_scale): its words are checked in test_block_scale.py
BLOCK_SCALE_FILES = sorted(glob.glob(os.path.join(SPECS, "mma.*.yaml")))
SEED_SHAPES = ("m16n8k16", "m16n8k256", "m8n8k32", "m8n8k4")  # the five seed sections' shapes
SEED_FILES = [f for f in SPEC_FILES if os.path.basename(f)[:-5] in SEED_SHAPES]


def test_seed_suite_proves(run):
    r = run("prove", SPECS, "--format", "json")
    data = json.loads(r.out)
    assert r.code == 0, r.out
    s = data["summary"]
    assert s["refuted"] == s["unknown"] == s["spec_errors"] == 0
    # 12 of formulas, headers and element lists (m16n8k256's A.b1 twice); 14 of words; 6 of the
    # wgmma tables' and sentences' words. The rows a merged Elements cell spans are none (spanned_by)
    assert s["errata_confirmed"] == 32
    assert {x["spec"] for x in data["results"]} == set(SPEC_FILES) | set(MOVEMENT_FILES) | set(BLOCK_SCALE_FILES) | \
        set(TCGEN05_FILES) | {os.path.join(SPECS, "relations.yaml")}
    assert len(MOVEMENT_FILES) == 6 and len(BLOCK_SCALE_FILES) == 1 and len(TCGEN05_FILES) == 5
    fragments = {(x["spec"], x["fragment"]) for x in data["results"] if x["subject"] is None and x["spec"] in SPEC_FILES}
    drawn = {(f, fr.id) for f in SPEC_FILES for sec in load_spec(f).sections for fr in sec.figures_only}
    # 66 of mma.sync and mma.sp (4 sparse Bs drawn only); 118 of wgmma: 4 register As, and D at every
    # N: 32 values for k8, k16 and k32, 18 for k256 (.s32); 3 sparse wgmma As (D: the dense spec's)
    assert len(fragments) == 66 + 118 + 3 and len(drawn) == 4 and drawn <= fragments
    wgmma = {(f, fr.id) for f in SPEC_FILES for fr in load_spec(f).fragments() if fr.family == "wgmma"}
    assert len(wgmma) == 118 and wgmma <= fragments
    seeds = {(f, fr.id) for f in SEED_FILES for sec in load_spec(f).sections if sec.seed.startswith("seeds/")
             for fr in sec.fragments}
    assert len(seeds) == 23 and seeds <= fragments
    sparse = {(f, fr.id) for f in SPEC_FILES for fr in load_spec(f).fragments() if fr.sparsity is not None}
    assert len(sparse) == 8 + 3 and sparse <= fragments  # mma.sp, and the sparse wgmma As


def test_every_seed_section_is_transcribed():
    sections = {s.section for f in SEED_FILES for s in load_spec(f).sections if s.seed.startswith("seeds/")}
    assert sections == {"9.7.14.5.1", "9.7.14.5.2", "9.7.14.5.4", "9.7.14.5.8", "9.7.14.5.9", "9.7.14.5.13"}


def test_every_mma_sync_and_mma_sp_fragment_section_of_the_chapter_is_transcribed():
    sections = {s.section for f in SPEC_FILES for s in load_spec(f).sections}
    assert sections == ({f"9.7.14.5.{k}" for k in range(1, 14)} | {f"9.7.14.6.2.{k}" for k in range(1, 9)}
                        | {f"9.7.15.5.1.1.{k}" for k in range(1, 5)} | {f"9.7.15.6.2.{k}" for k in range(1, 4)})
    for f in SPEC_FILES:
        for sec in load_spec(f).sections:
            assert all((fr.sparsity is not None) == sec.section.startswith(("9.7.14.6.", "9.7.15.6."))
                       for fr in sec.fragments)


def test_m8n8k4_f16_has_four_computations_over_the_warp():
    spec = load_spec(os.path.join(SPECS, "m8n8k4.yaml"))
    sec = spec.sections[0]
    assert [c.lanes for c in sec.computations] == [
        tuple(range(4 * k, 4 * k + 4)) + tuple(range(16 + 4 * k, 20 + 4 * k)) for k in range(4)]
    assert {f.id for f in sec.fragments} == {"A.f16.row", "A.f16.col", "B.f16.row", "B.f16.col", "C.f16", "C.f32"}


def once(fragments) -> list:
    """One instance of each fragment of a parametric shape (wgmma D at every N prints one table)."""
    return list({f.span: f for f in reversed(fragments)}.values())[::-1]


ERRATA = [(f, fr.id, k, e) for f in SPEC_FILES for fr in once(load_spec(f).fragments()) for k, e in enumerate(fr.errata)]


def _drop_erratum(data, fid, erratum):
    """The spec with one erratum removed, so the document's printed text is what gets checked."""
    for sec in data["sections"]:
        for fr in sec["fragments"]:
            if fr["id"] != fid.split("[")[0]:  # an instance's id names its parameter: D.f32[N=8]
                continue
            holders = [fr] + fr["table"]
            for h in holders:
                kept = [e for e in h.get("errata", []) if e["printed"] != erratum.printed]
                if len(kept) != len(h.get("errata", [])):
                    if kept:
                        h["errata"] = kept
                    else:
                        del h["errata"]
                    return data
    raise AssertionError("erratum not found")


@pytest.mark.parametrize("path,fid,k,erratum", ERRATA,
                         ids=[f"{os.path.basename(p)}:{fid}:{e.field}" for p, fid, _, e in ERRATA])
def test_printed_text_alone_fails(tmp_path, run, path, fid, k, erratum):
    import yaml

    data = _drop_erratum(yaml.safe_load(open(path)), fid, erratum)
    out = tmp_path / os.path.basename(path)
    out.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    r = run("prove", str(out), "--format", "json")
    if erratum.printed == "" and erratum.row == 0:  # no list at all: the layout has no elements to read
        assert r.code == 3 and "the first table row must give the element list" in r.out
        return
    bad = [x for x in json.loads(r.out)["results"]  # the fragment's other errata are still confirmed
           if x["fragment"] == fid and x["verdict"] != "PROVED" and not x["erratum"]]
    assert bad, "the printed text passed"
    if erratum.breaks == ("syntax",):
        assert r.code == 3 and bad[0]["verdict"] == "SPEC_ERROR"
        assert bad[0]["location"].startswith(str(out) + ":")
    else:
        assert r.code == 1
        assert {x["property"] for x in bad} == set(erratum.breaks)
        assert all(x["counterexample"] and x["location"].startswith(str(out) + ":") for x in bad)


def test_editor_schema_is_the_checker_schema():
    with open(os.path.join(SPECS, "schema", "spec.schema.json")) as fh:
        assert json.load(fh) == schema()


def test_schema_accepts_every_seed_and_rejects_unknown_keys():
    import yaml
    from jsonschema import Draft202012Validator

    v = Draft202012Validator(schema())
    for f in SPEC_FILES:
        data = yaml.safe_load(open(f))
        assert not list(v.iter_errors(data)), f
        data["sections"][0]["fragments"][0]["colour"] = "blue"
        assert list(v.iter_errors(data))


def test_every_spec_points_editors_at_the_schema():
    for f in SPEC_FILES:
        assert open(f).readline().strip() == "# yaml-language-server: $schema=schema/spec.schema.json"


def test_seed_files_exist_for_every_section():
    for f in SPEC_FILES:
        for s in load_spec(f).sections:
            assert os.path.exists(os.path.join(DOCUMENT, s.seed)), s.seed


def _code_blocks(text):
    import re

    return [b for b in re.findall(r"```\n(.*?)```", text, re.S)]


WORDS = {"one": 1, "two": 2, "four": 4, "eight": 8}


def test_rest_of_chapter_specs_are_verbatim():
    """Every formula block, Fragment cell, element list and caption of the specs transcribed from
    document/ptx-isa is the document's text, character for character (errata are applied on
    top of it, never in it)."""
    root = DOCUMENT
    storage = {number: " ".join(open(os.path.join(root, "ptx-isa", name), encoding="utf-8").read().split())
               for number, name in (("9.7.14.6.1", "9.7.14.6.1-sparse-matrix-storage.md"),
                                    ("9.7.15.6.1", "9.7.15.6.1-wgmma-sparse-matrix-storage.md"))}
    checked = 0
    for f in SPEC_FILES:
        for sec in load_spec(f).sections:
            if not sec.seed.startswith("ptx-isa/"):
                continue
            text = open(os.path.join(root, sec.seed), encoding="utf-8").read()
            blocks = _code_blocks(text)
            for fr in once(sec.fragments):
                if fr.figure_reading is not None:  # no formula printed: the figure's reading (test_wgmma.py)
                    assert fr.formula.text not in blocks and fr.figure_reading.figure in fr.figures, (f, fr.id)
                    assert f"## {sec.section}. {sec.title}" in text, (f, sec.title)
                else:
                    assert fr.formula.text in blocks, (f, fr.id)
                parts = re.split(r" / (?=(?:Sparse )?MMA )", fr.caption)  # a fragment drawn in two figures
                for fig, part in zip(fr.figures, parts, strict=True):
                    assert f"**{fig} {part}**" in text, (f, fr.id, fig)
                for row in fr.table:
                    assert f"| {row.fragment} |" in text, (f, fr.id, row.fragment)
                    # the Elements cell of this row (not any row): the list, the note, or empty; and
                    # the Miscellaneous cell where the table has one (wgmma), in the cells that follow
                    assert [c for c in (_listed(row), row.miscellaneous) if c] in filled_cells(text, row.fragment), \
                        (f, fr.id, row.fragment)
                if fr.sparsity is not None:  # the granularity as the storage section words it
                    assert " ".join(fr.sparsity.printed.split()) in storage[fr.sparsity.section], (f, fr.id)
                    said = re.search(r"containing (\w+) +non-zero .* out of +(\w+) +consecutive", fr.table[0].fragment)
                    n, of = (int(x) if x.isdigit() else WORDS[x] for x in said.groups())
                    if fr.family == "wgmma.sp" and "each register" not in fr.table[0].fragment:
                        # sparse wgmma .tf32 counts the whole vector (four registers): test_wgmma_sparse.py
                        n, of = n // fr.table[0].count, of // fr.table[0].count
                    assert (n, of) == (fr.table[0].per_register, fr.table[0].out_of)
                checked += 1
    assert checked == 39 + 8 + 3


def _seed_text(text: str) -> str:
    """A seed as its words: markdown links reduced to their text, permalink anchors dropped and
    every line's indentation removed; nothing else is changed, so a word that differs still fails."""
    text = re.sub(r"\[\]\([^)]*\)", "", text)
    text = re.sub(r"\[([^\]]*)\]\((?:[^)\"]|\"[^\"]*\")*\)", r"\1", text)
    return "\n".join(line.strip() for line in text.splitlines())


def _cell(text: str, cell: str) -> bool:
    """A table cell: `| cell |` in markdown, or a line `cell |` in the plain-text seed."""
    return re.search(r"(^|\| )" + re.escape(cell) + r" \|", text, re.M) is not None


def _seed_mismatches(path: str, sections, root: str) -> list:
    """What of the seed sections of one spec is not the seed's text, one tuple per field."""
    bad = []
    for sec in sections:
        if not sec.seed.startswith("seeds/"):
            continue
        text = _seed_text(open(os.path.join(root, sec.seed), encoding="utf-8").read())
        if sec.title not in text:
            bad.append((path, sec.section, "title", sec.title))
        for fr in sec.fragments:
            block = "\n".join(line.strip() for line in fr.formula.text.strip("\n").splitlines())
            if block not in text:
                bad.append((path, fr.id, "formula", block))
            parts = re.split(r" / (?=(?:Sparse )?MMA )", fr.caption)
            if len(parts) != len(fr.figures):
                bad.append((path, fr.id, "caption", f"{len(parts)} captions for {len(fr.figures)} figures"))
            bad += [(path, fr.id, "caption", part) for fig, part in zip(fr.figures, parts) if f"{fig} {part}" not in text]
            for row in fr.table:
                if not _cell(text, row.fragment):
                    bad.append((path, fr.id, "fragment", row.fragment))
                elif _listed(row) not in elements_cells(text, row.fragment):
                    bad.append((path, fr.id, "elements", _listed(row)))
    return bad


def _listed(row) -> str:
    """What a row's Elements cell holds as transcribed: the list, the sparse note, or "" (empty)."""
    return row.elements.text if row.elements is not None else (row.elements_note or "")


def elements_cells(text: str, fragment: str) -> list:
    """The Elements cells of the table rows whose Fragment cell is `fragment` (one text may print
    the same Fragment cell in two tables): in Markdown the next cell of its line; in the
    plain-text seed the next line (`c0, c1, ... |`, or `|` for an empty cell). "" where a row has
    an empty cell or none."""
    lines, cells = text.splitlines(), []
    for i, line in enumerate(lines):
        if f"| {fragment} |" in line:
            rest = line.split(f"| {fragment} |", 1)[1].strip()
            cells.append(rest[:-1].strip() if rest.endswith("|") else rest)
        elif line.strip() == f"{fragment} |":
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            cells.append(nxt[:-1].strip() if re.match(r"[a-z][0-9]", nxt) and nxt.endswith("|") else "")
    return cells


def filled_cells(text: str, fragment: str) -> list:
    """For each Markdown table row whose Fragment cell is `fragment`: its non-empty cells after
    that one. A merged cell is simply missing in 9.1's Markdown (the wgmma k32 .f32 row prints its
    Miscellaneous cell right after the Fragment cell), so the cells are compared in order, empty
    ones left out on both sides."""
    out = []
    for line in text.splitlines():
        if f"| {fragment} |" in line:
            rest = line.split(f"| {fragment} |", 1)[1].strip()
            cells = [c.strip() for c in rest.rstrip("|").split(" | ")] if rest.rstrip("|").strip() else []
            out.append([c for c in cells if c])
    return out


def test_seed_specs_are_verbatim():
    """The five seed sections, like the rest of the chapter: every title, formula block, Fragment
    cell, element list and caption is the seed's text (a fragment drawn in two figures carries
    both captions, one per figure, joined by " / ")."""
    root = DOCUMENT
    assert [m for f in SEED_FILES for m in _seed_mismatches(f, load_spec(f).sections, root)] == []
    assert sum(len(s.fragments) for f in SEED_FILES for s in load_spec(f).sections if s.seed.startswith("seeds/")) == 23


def test_a_caption_that_is_not_the_documents_fails_the_verbatim_test():
    """The check above can fail: the caption m8n8k4 C.f32 carried before (the captions of Figures
    51 and 52 merged into one made-up sentence) is reported, and so is a changed formula line."""
    import dataclasses

    root = DOCUMENT
    path = os.path.join(SPECS, "m8n8k4.yaml")
    sections = load_spec(path).sections
    made_up = ("MMA .m8n8k4 computation 1 and 2 (Figure 51), 3 and 4 (Figure 52) fragment layout for matrix C/D "
               "with `.ctype` = `.f32`")
    sec = sections[0]
    frs = tuple(dataclasses.replace(fr, caption=made_up) if fr.id == "C.f32" else fr for fr in sec.fragments)
    got = _seed_mismatches(path, [dataclasses.replace(sec, fragments=frs)], root)
    assert got == [(path, "C.f32", "caption", "1 captions for 2 figures"), (path, "C.f32", "caption", made_up)]
    # an Elements cell filled in where the document's is empty (as m8n8k4 C.f32 once was)
    c32 = next(fr for fr in sec.fragments if fr.id == "C.f32")
    c16 = next(fr for fr in sec.fragments if fr.id == "C.f16")
    filled = dataclasses.replace(c32.table[0], elements=c16.table[0].elements)
    frs = tuple(dataclasses.replace(fr, table=(filled,)) if fr.id == "C.f32" else fr for fr in sec.fragments)
    got = _seed_mismatches(path, [dataclasses.replace(sec, fragments=frs)], root)
    assert got == [(path, "C.f32", "elements", "c0, c1, c2, c3, c4, c5, c6, c7")]
