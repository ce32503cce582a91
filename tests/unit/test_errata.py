"""`checker errata`: every confirmed erratum, with its evidence, kind and versions."""
import json
import os

import yaml

from conftest import SPECS


def test_errata_lists_every_confirmed_erratum_with_its_evidence(run):
    r = run("errata", SPECS, "--format", "json")
    assert r.code == 0
    doc = json.loads(r.out)
    assert doc["counts"] == {"errata": 31, "contradictions": 12, "judgments": 19}  # 6 of the wgmma tables
    assert all(e["versions"] == ["9.1", "9.2"] and e["breaks"] for e in doc["errata"])
    a = next(e for e in doc["errata"] if e["shape"] == "m16n8k256" and e["subject"] == "A.b1")
    assert a["kind"] == "contradiction" and a["where"] == "§9.7.14.5.13, Figure 100"
    assert {b["property"] for b in a["breaks"]} == {"injective", "covers"}
    inj = next(b for b in a["breaks"] if b["property"] == "injective")
    assert inj["counterexample"]["lanes"] == [0, 3] and "--as-printed 1" in inj["counterexample"]["replay"]
    title = next(e for e in doc["errata"] if e["subject"] == "title" and e["shape"] == "m16n8k16")
    assert title["kind"] == "judgment" and title["printed"] == "with integer type"
    # a wgmma D's table holds for every N: its errata name the fragment, not the N = 8 instance
    d = [e for e in doc["errata"] if e["shape"].startswith("m64nN") and e["subject"].startswith("D.")]
    assert len(d) == 3 and "D.f32" in {e["subject"] for e in d}
    assert not any("[N=" in json.dumps(e) for e in d)


def test_errata_text_and_markdown(run):
    r = run("errata", os.path.join(SPECS, "m16n8k256.yaml"))
    assert r.code == 0
    assert r.out.rstrip().splitlines()[-1] == "1 erratum: 1 contradiction, 0 judgments"
    assert "printed in PTX ISA 9.1, 9.2" in r.out
    md = run("errata", os.path.join(SPECS, "m16n8k256.yaml"), "--format", "markdown").out
    assert "## Contradictions" in md and "## Judgments" not in md


def test_an_erratum_that_is_not_confirmed_fails_the_command(run, tmp_path):
    data = yaml.safe_load(open(os.path.join(SPECS, "m16n8k64.yaml"), encoding="utf-8"))
    data["sections"][1]["errata"][0]["breaks"] = ["wording"]
    for name in os.listdir(SPECS):
        if name.endswith(".yaml"):
            (tmp_path / name).write_text(open(os.path.join(SPECS, name), encoding="utf-8").read(), encoding="utf-8")
    (tmp_path / "m16n8k64.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    r = run("errata", str(tmp_path / "m16n8k64.yaml"))
    assert r.code == 1
    assert "9.7.14.6.2.6 title" not in r.out  # an erratum that does not fail as declared is not listed
    assert "error: " in r.err  # and what failed is said, located


def _narrowed(tmp_path, breaks) -> str:
    for name in os.listdir(SPECS):  # the scope reads the specs beside it
        if name.endswith(".yaml"):
            (tmp_path / name).write_text(open(os.path.join(SPECS, name), encoding="utf-8").read(), encoding="utf-8")
    path = tmp_path / "m16n8k256.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count("breaks: [injective, covers]") == 1
    path.write_text(text.replace("breaks: [injective, covers]", f"breaks: [{breaks}]"), encoding="utf-8")
    return str(path)


def test_an_erratum_that_breaks_more_than_declared_shows_the_counterexample_and_its_replay(run, tmp_path):
    """m16n8k256's A.b1 erratum narrowed to breaks: [injective]: the printed text also leaves
    A[8][0] to no lane, and the error says so, with the cell and the command that shows it."""
    path = _narrowed(tmp_path, "injective")
    r = run("prove", path)
    assert r.code == 1
    assert (f"{path}:32:13: error: A.b1 erratum refuted: erratum not confirmed as declared: the printed text also "
            "breaks covers: as printed: A.b1 does not cover A[8][0]: no lane holds it\n"
            f"    replay: checker where {path} --fragment A.b1 --row 8 --col 0 --as-printed 1\n") in r.out
    (x,) = [x for x in json.loads(run("prove", path, "--format", "json").out)["results"] if x["property"] == "erratum"]
    cex = x["counterexample"]
    assert cex["cell"] == [8, 0] and set(cex["breaks"]) == {"covers"}
    assert cex["declared"] == ["injective"] and cex["printed_breaks"] == ["covers", "injective"]
    replay = run(*cex["replay"].split()[1:])
    assert replay.code == 1 and "A[8][0] in m16n8k256 A.b1 as printed (erratum 1): no lane holds it" in replay.out


def test_an_erratum_narrowed_to_covers_shows_the_injective_pair(run, tmp_path):
    path = _narrowed(tmp_path, "covers")
    (x,) = [x for x in json.loads(run("prove", path, "--format", "json").out)["results"] if x["property"] == "erratum"]
    assert x["message"] == ("erratum not confirmed as declared: the printed text also breaks injective: as printed: "
                            "A.b1 is not injective: lane 0 a96 and lane 3 a32 both hold A[8][128]")
    cex = x["counterexample"]
    assert cex["lanes"] == [0, 3] and cex["cell"] == [8, 128] and len(cex["pieces"]) == 4
    assert cex["replay"] == (f"checker eval {path} --fragment A.b1 --lane 0 --i 96 --as-printed 1 ; "
                             f"checker eval {path} --fragment A.b1 --lane 3 --i 32 --as-printed 1")


def test_errata_says_what_failed_located_as_prove_does(run, tmp_path):
    """It printed only '0 errata: ...' with exit 3 for an empty file (or a FIFO, or binary junk),
    and exit 1 without a word of what was refuted: the failures go to stderr, as prove gives them."""
    from conftest import CASES

    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    junk = tmp_path / "junk.yaml"
    junk.write_bytes(b"\xff\xfe\x00\x01")
    os.mkfifo(tmp_path / "fifo.yaml")
    for path, message in ((empty, "file is empty, expected a spec mapping"),
                          (junk, "file is binary (it contains NUL bytes), expected YAML text"),
                          (tmp_path / "fifo.yaml", "not a regular file: it is a FIFO")):
        r = run("errata", str(path))
        assert r.code == 3 and f"{path}:1:1: error: {message}" in r.err, r.out + r.err
    mutant = os.path.join(CASES, "mutants", "injective-mask", "m16n8k256.yaml")
    r = run("errata", mutant)
    assert r.code == 1
    assert f"{mutant}:58:22: error: B.b1 injective refuted: B.b1 is not injective" in r.err, r.err
    assert "    replay: checker eval " in r.err
    proved = run("prove", mutant).out.splitlines()
    assert all(ln in proved for ln in r.err.splitlines())  # word for word prove's lines
    assert [ln for ln in proved if ": error: " in ln] == [ln for ln in r.err.splitlines() if ": error: " in ln]


def test_an_erratum_declaring_a_break_the_printed_text_does_not_make_fails(run, tmp_path):
    # the other way from the tests above: the erratum declares `defined`, which the printed text keeps
    path = _narrowed(tmp_path, "defined, injective, covers")
    r = run("prove", path, "--format", "json")
    assert r.code == 1
    results = [x for x in json.loads(r.out)["results"] if x["spec"] == path and x["fragment"] == "A.b1"]
    (bad,) = [x for x in results if x["property"] == "erratum"]
    assert bad["verdict"] == "REFUTED" and "the printed text does not break defined" in bad["message"]
    assert not any(x["erratum"] for x in results)  # nothing of it confirmed


def _rows_without_a_list():
    """(spec, fragment, table row, printed one cell short in 9.1, spanned_by, an empty cell's
    erratum) for every table row whose `elements` is null and that has no note of its own."""
    import glob

    from conftest import DOCUMENT

    from checker.spec.load import load_spec
    from checker.verbatim import document
    from checker.verbatim import normalise as nm

    doc = document.read([(None, DOCUMENT)])
    nine_one = [f for f in doc.files if f.version == "9.1"]
    out = []
    for path in sorted(glob.glob(os.path.join(SPECS, "m*.yaml"))):
        for sec in load_spec(path).sections:
            frs = {f.span: f for f in sec.fragments + sec.figures_only}.values()  # a wgmma D's instances: one table
            for f in frs:
                for k, row in enumerate(f.table):
                    if row.elements is not None or row.elements_note is not None:
                        continue
                    cell = nm.prose(row.fragment)[0]
                    short = set()
                    for d in nine_one:
                        regs = d.regions(sec.section)
                        for c in d.cells:
                            if c.text == cell and c.origins and any(a <= c.origins[0] < b for a, b in regs):
                                header = min(x.row for x in d.cells if x.table == c.table)
                                width = sum(x.row == header for x in d.cells)
                                short.add(sum(x.row == c.row for x in d.cells) < width)
                    assert len(short) == 1, (path, f.id, k, short)  # found in 9.1, one way
                    empty = any(e.row == k and e.printed == "" for e in f.errata)
                    out.append((os.path.basename(path), f.id.split("[")[0], k + 1, short.pop(),
                                row.spanned_by is not None, empty))
    return out


def test_every_row_a_merged_cell_spans_reads_it_and_no_erratum_calls_it_empty():
    """One reading for every row the document prints without an Elements cell of its own. The 9.1
    text leaves a merged cell out of every row it spans but the first, one cell short of the
    table's header with the row's later cells kept (m64nNk32's .f32 D row keeps its Miscellaneous
    cell), and prints an empty cell as `|  |` (m16n8k8's .f32 C row); 9.2 prints both as empty
    cells. So a row printed short gives the merged cell (`spanned_by`) and is no erratum; an
    erratum of an empty cell stands where 9.1 prints the cell, or where the section's texts
    disagree: m16n8k16's C, whose .f32 row the plain-text seed prints with an empty cell. Four
    wgmma rows and m8n8k4's, m16n8k64's and m16n8k128's B rows had been errata ("9.1 prints no
    cell"), m64nNk64.sp's .s8/.u8 row and two mma.sp A rows silent spans: read both ways."""
    rows = _rows_without_a_list()
    disputed = {("m16n8k16.yaml", "C.float", 2), ("m16n8k16.yaml", "C.float", 3)}
    for spec, fid, k, short, spanned, empty in rows:
        if (spec, fid, k) in disputed:
            assert short and empty and not spanned, (spec, fid, k)
        else:
            assert spanned == short and empty == (not short), (spec, fid, k, short, spanned, empty)
    assert sorted((s, f, k) for s, f, k, _, spanned, _ in rows if spanned) == [
        ("m16n8k128.yaml", "A.sp.i4", 2), ("m16n8k128.yaml", "B.sp.i4", 2), ("m16n8k64.yaml", "A.sp.i8", 2),
        ("m16n8k64.yaml", "B.sp.i8", 2), ("m64nNk16.yaml", "D.float", 2), ("m64nNk32.yaml", "A.i8", 2),
        ("m64nNk32.yaml", "D.s32.float", 2), ("m64nNk32.yaml", "D.s32.float", 3), ("m64nNk64.sp.yaml", "A.sp.i8", 2),
        ("m8n8k4.yaml", "C.f32", 1)]
    assert sorted((s, f, k) for s, f, k, _, _, empty in rows if empty) == [
        ("m16n8k16.yaml", "C.float", 2), ("m16n8k16.yaml", "C.float", 3), ("m16n8k8.yaml", "C.float", 2)]
