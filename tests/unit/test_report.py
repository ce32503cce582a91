"""`checker report`: the pages and figures, the committed report kept current (`--check`), and the
figures placing every cell where the document's figures do."""
import json
import os
import re
import shutil

import pytest
import yaml

from conftest import DOCUMENT, ROOT, SPECS

from checker.report import figures, isa


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    """The report of the seed specs, written once into a scratch folder."""
    from checker.cli import main

    out = str(tmp_path_factory.mktemp("report"))
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        assert main(["report", "specs/", "--out", out, "--jobs", "1"], _Sink(), _Sink()) == 0
    finally:
        os.chdir(cwd)
    return out


class _Sink:
    def __init__(self):
        self.text = ""

    def write(self, s):
        self.text += s


def _read(*parts):
    with open(os.path.join(*parts), encoding="utf-8") as fh:
        return fh.read()


def labels(svg: str) -> list:
    """Every labelled cell of a layout figure, in the order drawn: (lane, element)."""
    return [(int(lane), name) for lane, name in re.findall(r">T(\d+)<tspan[^>]*>(\w+)</tspan>", svg)]


def cells(svg: str, rows: int, cols: int, panels: int = 1) -> list:
    """Labels back to matrix cells: panels one after another, each drawn band by band of
    figures.BAND columns, row by row inside a band."""
    order = [(r, c) for c0 in range(0, cols, figures.BAND) for r in range(rows)
             for c in range(c0, min(cols, c0 + figures.BAND))]
    got = labels(svg)
    assert len(got) == panels * len(order), "a cell without exactly one holder"
    return [dict(zip(order, got[k * len(order):(k + 1) * len(order)])) for k in range(panels)]


# Cells of the document's figures (docs.nvidia.com PTX ISA, the figures the seeds name; the seeds
# carry only their captions), read off the published images.
DOCUMENT_FIGURES = {
    ("m16n8k16", "A.f16", 16, 16, 1): [  # Figure 79
        {(0, 0): (0, "a0"), (0, 1): (0, "a1"), (0, 2): (1, "a0"), (8, 0): (0, "a2"), (0, 8): (0, "a4"),
         (8, 8): (0, "a6"), (7, 6): (31, "a0"), (15, 15): (31, "a7")}],
    ("m16n8k16", "C.float", 16, 8, 1): [  # Figure 83
        {(0, 0): (0, "c0"), (0, 1): (0, "c1"), (0, 2): (1, "c0"), (8, 0): (0, "c2"), (15, 7): (31, "c3")}],
    ("m16n8k256", "A.b1", 16, 256, 1): [  # Figure 100
        {(0, 0): (0, "a0"), (0, 31): (0, "a31"), (8, 0): (0, "a32"), (0, 32): (1, "a0"), (0, 128): (0, "a64"),
         (8, 128): (0, "a96"), (15, 255): (31, "a127")}],
    ("m16n8k256", "B.b1", 256, 8, 1): [  # Figures 101 and 102
        {(0, 0): (0, "b0"), (31, 0): (0, "b31"), (32, 0): (1, "b0"), (128, 0): (0, "b32"),
         (255, 7): (31, "b63")}],
    ("m8n8k4", "A.f16.row", 8, 4, 4): [  # Figure 46, one panel per MMA computation
        {(0, 0): (0, "a0"), (0, 3): (0, "a3"), (3, 0): (3, "a0"), (4, 0): (16, "a0"), (7, 3): (19, "a3")},
        {(0, 0): (4, "a0"), (4, 0): (20, "a0")},
        {(0, 0): (8, "a0"), (7, 3): (27, "a3")},
        {(0, 0): (12, "a0"), (7, 3): (31, "a3")}],
    ("m8n8k4", "B.f16.col", 4, 8, 4): [  # Figure 49
        {(0, 0): (0, "b0"), (3, 0): (0, "b3"), (0, 1): (1, "b0"), (0, 4): (16, "b0")},
        {(0, 0): (4, "b0")}, {(0, 0): (8, "b0")}, {(0, 7): (31, "b0")}],
}


@pytest.mark.parametrize("figure", sorted(DOCUMENT_FIGURES), ids=lambda f: f"{f[0]}-{f[1]}")
def test_figures_match_the_documents(report_dir, figure):
    shape, fid, rows, cols, panels = figure
    svg = _read(report_dir, "figures", f"{shape}.{fid}.layout.svg")
    drawn = cells(svg, rows, cols, panels)
    for panel, expected in zip(drawn, DOCUMENT_FIGURES[figure]):
        for cell, holder in expected.items():
            assert panel[cell] == holder, (fid, cell)


def test_m8n8k4_computations_are_told_apart(report_dir):
    svg = _read(report_dir, "figures", "m8n8k4.C.f32.layout.svg")
    for k, colour in enumerate(figures.COMPUTATION_STROKE, 1):
        assert f"MMA computation {k}: lanes" in svg
        assert f'stroke="{colour}"' in svg


def test_every_page_and_figure_is_written_and_linked(report_dir):
    names = set(os.listdir(report_dir))
    assert {"index.html", "README.md", "isa-coverage.md", "timings.json", "figures"} <= names
    for shape in ("m16n8k16", "m16n8k256", "m8n8k32", "m8n8k4", "relations"):
        assert f"{shape}.md" in names
    # one HTML page per report page: index.html is the summary, each spec has its own
    pages = sorted(n for n in names if n.endswith(".html"))
    assert pages == sorted(["index.html"] + [n[:-3] + ".html" for n in names
                                             if n.endswith(".md") and n not in ("README.md", "errata.md", "conformance.md")])
    html = {p: _read(report_dir, p) for p in pages}
    figs = sorted(os.listdir(os.path.join(report_dir, "figures")))
    referenced = sorted({f for text in html.values() for f in re.findall(r'<img src="figures/([^"]+)"', text)})
    assert figs == referenced and len(figs) >= 2 * 23
    # every link between the pages lands on a page and an id that exist; a fragment has an address
    ids = {p: set(re.findall(r' id="([^"]+)"', text)) for p, text in html.items()}
    for p, text in html.items():
        for page, frag in re.findall(r'<a[^>]* href="([\w.-]*\.html|)(?:#([^"]*))?"', text):
            target = page or p
            assert target in html, (p, page)
            assert not frag or frag in ids[target], (p, page, frag)
    assert "af16" in ids["m16n8k16.html"] and "ab1" in ids["m16n8k256.html"]
    assert 'href="m16n8k256.html#ab1"' in html["index.html"]
    # every relative link of every Markdown page lands on a file that exists
    for page in (n for n in names if n.endswith(".md")):
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", _read(report_dir, page)):
            if not target.startswith("http"):
                assert os.path.exists(os.path.join(report_dir, target)) or \
                    os.path.exists(os.path.join(ROOT, "reports", target)), (page, target)


def test_pages_show_proofs_formulas_and_errata(report_dir):
    page = _read(report_dir, "m16n8k256.md")
    assert "## A.b1" in page and "Figure 100" in page
    assert "As printed in the document" in page and "(threadID_in_group * 32) + (i & 0x1F)" in page
    assert "| injective |  | proved |" in page
    assert "lane 0 a96 and lane 3 a32 both hold A[8][128]" in page
    assert "checker eval specs/m16n8k256.yaml --fragment A.b1 --lane 0 --i 96 --as-printed 1" in page
    summary = _read(report_dir, "README.md")
    assert "| errata of the document confirmed (the printed text fails as declared) | 32 |" in summary  # 6 of wgmma tables
    assert "| refuted (failures) | 0 |" in summary


def test_the_summary_lists_every_erratum_and_every_figure_only_fragment(report_dir, run):
    """The summary's errata table has a row for each erratum `checker errata` confirms (titles,
    sentences and figure-only fragments included), each linked to where it is."""
    listed = json.loads(run("errata", SPECS, "--format", "json").out)["errata"]
    summary = _read(report_dir, "README.md")
    table = summary[summary.index("## Errata found in the document"):summary.index("## Fragments given only")]
    rows = [ln for ln in table.splitlines() if ln.startswith("| [m")]
    assert len(rows) == len(listed) == 31  # 6 of the wgmma tables and sentences
    for row, e in zip(rows, listed):
        assert f"`{os.path.relpath(e['at'], ROOT)}`" in row and e["kind"] in row
    assert "title ([§9.7.14.5.9](m16n8k16.md#errata-of-titles-and-sentences))" in table
    drawn = summary[summary.index("## Fragments given only as figures"):summary.index("## Slowest")]
    for shape, fid in (("m16n8k16", "B.sp.tf32"), ("m16n8k32", "B.sp.f16"), ("m16n8k64", "B.sp.i8"),
                       ("m16n8k128", "B.sp.i4")):
        assert f"[{fid}]({shape}.md#{fid.replace('.', '').lower()})" in drawn
        assert f"## {fid}" in _read(report_dir, f"{shape}.md")
    assert "| fragments with formulas (each proved) | 260 |" in summary  # 62 of mma, 22 ldmatrix & co., 118 wgmma readings, 3 sparse wgmma, 18 block-scale factors, 37 tcgen05
    assert "| fragments the document gives only as figures (their tables checked) | 4 |" in summary


def test_formulas_wrap_and_wide_ones_stand_one_above_the_other(report_dir):
    index = _read(report_dir, "m16n8k256.html")
    assert "white-space: pre-wrap" in index
    a = index[index.index('id="ab1"'):index.index('id="bb1"')]
    assert '<div class="pair wide">' in a  # its conditions are longer than half the column


def test_errata_page_lists_every_erratum_with_its_evidence(report_dir):
    """errata.md, for a documentation owner: contradictions apart from judgments, each with the
    printed text, the reading and what it breaks; the counterexample and replay where there is one."""
    page = _read(report_dir, "errata.md")
    assert "31 errata: 12 contradictions, 19 judgments." in page  # 6 of the wgmma tables
    assert page.index("## Contradictions") < page.index("## Judgments")
    contradictions = page[page.index("## Contradictions"):page.index("## Judgments")]
    assert "m16n8k256 §9.7.14.5.13, Figure 100: A.b1, formula" in contradictions
    assert "lane 0 a96 and lane 3 a32 both hold A[8][128]" in contradictions
    assert "replay: `checker eval specs/m16n8k256.yaml --fragment A.b1 --lane 0 --i 96 --as-printed 1" in contradictions
    judgments = page[page.index("## Judgments"):]
    assert "m16n8k16 §9.7.14.5.8, Figure 83: C.float, caption" in judgments and "matrix matrix" in judgments
    assert "**Printed**: an empty cell" in judgments


def test_printed_erratum_heat_map_marks_the_counterexample(report_dir):
    svg = _read(report_dir, "figures", "m16n8k256.A.b1.printed-1.svg")
    assert svg.count(f'fill="{figures.HEAT_FILL[0]}"') > 128  # the holes of rows 8-15, cols 0-127
    assert ">2</text>" in svg  # and the overlaps at cols 128-255
    assert 'class="k"' in svg and "does not cover A[8][0]" in svg and "both hold A[8][128]" in svg


def test_a_refuted_layout_marks_its_counterexample(tmp_path, run, monkeypatch):
    spec = tmp_path / "specs" / "m16n8k16.yaml"
    spec.parent.mkdir()
    text = _read(SPECS, "m16n8k16.yaml")
    spec.write_text(text.replace("row = groupID for ai where 0 <= i < 2 || 4 <= i < 6",
                                 "row = groupID for ai where i < 4", 1))
    monkeypatch.chdir(tmp_path)
    r = run("report", "specs/", "--out", "out", "--jobs", "1")
    assert r.code == 1, r.out + r.err
    page = _read(tmp_path, "out", "m16n8k16.md")
    assert "**REFUTED**" in page and "lane 0 a0 and lane 0 a2 both hold A[0][0]" in page
    heat = _read(tmp_path, "out", "figures", "m16n8k16.A.f16.coverage.svg")
    assert 'class="k"' in heat and ">0</text>" in heat and ">2</text>" in heat
    layout = _read(tmp_path, "out", "figures", "m16n8k16.A.f16.layout.svg")
    assert ">none</text>" in layout and ">2x</text>" in layout


def test_check_passes_on_a_fresh_report_and_names_every_stale_file(report_dir, run, tmp_path, monkeypatch):
    out = tmp_path / "rep"
    shutil.copytree(report_dir, out)
    monkeypatch.chdir(ROOT)
    r = run("report", "specs/", "--out", str(out), "--check", "--jobs", "1")
    assert r.code == 0 and "current" in r.out, r.out
    (out / "figures" / "m8n8k32.A.i4.layout.svg").write_text("<svg/>")
    (out / "figures" / "old.svg").write_text("<svg/>")
    (out / "README.md").unlink()
    r = run("report", "specs/", "--out", str(out), "--check", "--jobs", "1")
    assert r.code == 1
    assert f"{out}/figures/m8n8k32.A.i4.layout.svg: stale: differs from line 1" in r.out
    assert f"{out}/figures/old.svg: stale: no page uses it any more" in r.out
    assert f"{out}/README.md: stale: missing" in r.out
    # left-overs are counted apart: "202 of 29 report files stale" counted them against the files written
    assert "2 of 347 report files stale, 1 left over; regenerate with: checker report specs/" in r.out, r.out
    (out / "timings.json").unlink()
    r = run("report", "specs/", "--out", str(out), "--check", "--jobs", "1")
    assert r.code == 1 and "no readable timings.json" in r.out


def test_a_page_of_a_spec_that_is_gone_is_named_and_removed_markdown_too(report_dir, run, tmp_path, monkeypatch):
    """A spec removed: its HTML page was named left over and removed, its Markdown page stayed for
    good with --check green. files.txt lists what the report wrote; nothing else of the folder is
    touched (a README of one's own under another name, the hardware dumps)."""
    out = tmp_path / "rep"
    shutil.copytree(report_dir, out)
    monkeypatch.chdir(ROOT)
    assert "stmatrix.m8n8.md\n" in (out / "files.txt").read_text()
    shutil.copytree(SPECS, tmp_path / "specs")
    os.remove(tmp_path / "specs" / "stmatrix.m8n8.yaml")
    (out / "notes.md").write_text("mine\n")
    r = run("report", str(tmp_path / "specs"), "--out", str(out), "--check", "--jobs", "1")
    assert r.code == 1 and f"{out}/stmatrix.m8n8.md: stale: no page uses it any more" in r.out, r.out
    assert "notes.md" not in r.out
    r = run("report", str(tmp_path / "specs"), "--out", str(out), "--jobs", "1")
    assert r.code == 0 and not (out / "stmatrix.m8n8.md").exists() and not (out / "stmatrix.m8n8.html").exists(), r.out
    assert (out / "notes.md").read_text() == "mine\n" and "stmatrix.m8n8" not in (out / "files.txt").read_text()
    # a hostile list names nothing outside what the report could have written
    (out / "files.txt").write_text("../../x.md\n/etc/passwd\nnotes.md/x\n.hidden.md\nhardware/a.json\n")
    r = run("report", str(tmp_path / "specs"), "--out", str(out), "--check", "--jobs", "1")
    assert "left over" not in r.out and (out / "notes.md").exists()


def test_report_names_what_fails_and_refuses_a_missing_dumps_folder(run, tmp_path, monkeypatch):
    """--check said only "current (16 files)" and exited 1 where proofs failed, the report only "3
    failing results"; and --dumps naming no folder counted "0 confirmed on hardware" in silence."""
    mutant = os.path.join(ROOT, "tests", "cases", "mutants", "injective-mask")
    monkeypatch.chdir(ROOT)
    r = run("report", mutant, "--out", str(tmp_path / "o"), "--jobs", "1")
    assert r.code == 1 and "3 failing results (said above, located" in r.out, r.out
    assert f"{mutant}/m16n8k256.yaml:" in r.err and "injective refuted" in r.err, r.err
    r = run("report", mutant, "--out", str(tmp_path / "o"), "--check", "--jobs", "1")
    assert r.code == 1 and "current (" in r.out and "3 failing results" in r.out and "injective refuted" in r.err
    for bad, why in ((tmp_path / "nope", "no such file or folder"), (os.path.join(ROOT, "README.md"), "not a folder")):
        r = run("report", "specs/m8n8k32.yaml", "--out", str(tmp_path / "p"), "--dumps", str(bad))
        assert r.code == 2 and f"--dumps {bad}: {why}" in r.err, r.err


def test_check_fails_after_a_spec_edit(report_dir, run, tmp_path, monkeypatch):
    """A spec edit that keeps every theorem still changes what the report shows."""
    shutil.copytree(SPECS, tmp_path / "specs")
    shutil.copytree(report_dir, tmp_path / "reports")
    monkeypatch.chdir(tmp_path)
    assert run("report", "specs/", "--out", "reports", "--check", "--jobs", "1").code == 0
    path = tmp_path / "specs" / "m8n8k32.yaml"
    text = path.read_text()
    path.write_text(text.replace("figures: [Figure", "figures: [Figure 9999, Figure", 1))
    r = run("report", "specs/", "--out", "reports", "--check", "--jobs", "1")
    assert r.code == 1 and "reports/m8n8k32.md: stale" in r.out and "Figure 9999" in r.out


def test_the_committed_report_is_current(run, monkeypatch):
    """What CI runs: the report under reports/ is what the specs give now."""
    monkeypatch.chdir(ROOT)
    r = run("report", "specs/", "--out", "reports", "--check")
    assert r.code == 0, r.out


def test_report_is_deterministic(report_dir, monkeypatch):
    from checker.commands import report as site  # the command proves; checker/report/ renders

    monkeypatch.chdir(ROOT)
    timings = site.committed_timings(report_dir)
    files = [os.path.join("specs", n) for n in sorted(os.listdir(SPECS)) if n.endswith(".yaml") and n != "untranscribed.yaml"]
    a, _ = site.render(files, 1, None, timings)
    b, _ = site.render(files, 2, None, timings)
    assert a == b


def test_report_usage_errors(run, tmp_path):
    assert run("report", str(tmp_path), "--out", str(tmp_path / "o")).code == 2
    assert run("report", "specs/", "--jobs", "0").code == 2


def test_isa_support_rows_are_the_documents(tmp_path):
    """Each row of the packaged table is still, word for word, in the support table it came from."""
    text = _read(os.path.join(DOCUMENT, "ptx-isa", "mma-support-table.md"))
    rows = isa.support()
    assert len(rows) == 31
    for row in rows:
        assert row["row"] in text
        for t in row["ab"] + row["cd"]:
            assert f".{t}`" in row["row"] or ".." in row["row"] or "f8f6f4" in row["row"], (t, row["row"])


def test_isa_coverage_counts(report_dir):
    page = _read(report_dir, "isa-coverage.md")
    assert "| `mma` | m16n8k16 | A | .f16 | f16: [A.f16](m16n8k16.md#af16) | 1 of 1 | 0 of 1 | 7.0 | sm_80 |" in page
    assert "| `mma` | m16n8k8 | A | .f16 | f16: [A.f16](m16n8k8.md#af16) | 1 of 1 | 0 of 1 | 6.5 | sm_75 |" in page
    # every dense mma row of the chapter is specified and proved; of mma.sp all but the 10 rows
    # whose B the document only draws, or whose C/D type its "same as" fragment does not hold
    dense = [line for line in page.splitlines() if line.startswith("| `mma` |")]
    assert len(dense) == 66 and not any("| — |" in line for line in dense)
    assert "| fully proved | 113 |" in page
    assert "| `mma.sp` | m16n8k16 | A | .f16 | f16: [A.sp.f16](m16n8k16.md#aspf16) | 1 of 1 |" in page
    assert "| `mma.sp` | m16n8k32 | B | .f16 | — |" in page  # Figure 121 only
    assert "| `mma.sp` | m16n8k128 | C/D | .s32 | s32: [m16n8k64/C.s32](m16n8k64.md#cs32) |" in page
    data = yaml.safe_load(_read(ROOT, "checker", "report", "isa-support.yaml"))
    assert all(r["instruction"] in ("mma", "mma.sp") for r in data)


def _hardware_header(d):
    """What a GPU's run writes where a synthetic dump says "reference model": a device with its sm,
    and a note of its own (the schemas refuse a synthetic dump whose source alone was changed)."""
    d["source"] = "hardware"
    d["note"] = "relabelled by a test"
    d["device"] = dict(d["device"], name="a test's device", sm=90)


def _as_hardware(src, dst_dir):
    """A synthetic dump relabelled as hardware: what `checker probe` on a GPU would write when the
    GPU agrees."""
    import gzip
    import json

    with gzip.open(src, "rt") as fh:
        d = json.load(fh)
    _hardware_header(d)
    dst = os.path.join(dst_dir, os.path.basename(src))
    with gzip.open(dst, "wt") as fh:
        json.dump(d, fh)
    return dst


def test_hardware_dumps_that_agree_are_counted_per_type(tmp_path):
    from checker.probe import agreement as isa  # counted by the probe, shown by report/isa.py

    name = "m16n8k16.row.col.f32.bf16.bf16.f32.dump.json.gz"
    _as_hardware(os.path.join(ROOT, "reports", "synthetic", name), str(tmp_path))
    files = [os.path.join(SPECS, "m16n8k16.yaml")]
    counts, agreeing = isa.hardware_agreement(files, str(tmp_path))
    assert agreeing == 1
    assert counts == {("m16n8k16", "A", "bf16"): 1, ("m16n8k16", "B", "bf16"): 1, ("m16n8k16", "C/D", "f32"): 1}
    # the synthetic dumps themselves never count
    assert isa.hardware_agreement(files, os.path.join(ROOT, "reports", "synthetic")) == ({}, 0)


def test_docs_quote_the_report():
    """docs/report.md's numbers are the committed report's: the holes and overlaps of m16n8k256 A
    as printed (its heat map), and the report's size."""
    with open(os.path.join(ROOT, "docs", "report.md"), encoding="utf-8") as fh:
        text = " ".join(fh.read().split())
    svg = _read(ROOT, "reports", "figures", "m16n8k256.A.b1.printed-1.svg")
    holes = len(re.findall(r'<rect [^>]*fill="#d73027"[^>]*/><text class="w"[^>]*>0<', svg))
    overlaps = len(re.findall(r'<rect [^>]*fill="#542788"[^>]*/><text class="w"[^>]*>\d+<', svg))
    assert holes == overlaps == 256
    assert f"m16n8k256 A shows its {holes} holes" in text and f"and {overlaps} overlaps" in text
    folder = os.path.join(ROOT, "reports")
    owned = [os.path.join(folder, n) for n in os.listdir(folder) if n.endswith((".html", ".md", ".json"))]
    figs = [os.path.join(folder, "figures", n) for n in os.listdir(os.path.join(folder, "figures"))]
    size = sum(map(os.path.getsize, owned + figs))
    assert f"the report is {size / 1e6:.1f} MB ({sum(map(os.path.getsize, figs)) / 1e6:.1f} MB of it SVG" in text


def test_no_committed_figure_draws_a_cell_that_no_thread_holds():
    """Every fragment of the catalogue covers its matrix as read (prove says so), so no committed
    figure may draw a `none` cell: the sparse wgmma figures once did for rows 16..63, drawn from a
    warp's 32 lanes instead of the warpgroup's 128 threads."""
    folder = os.path.join(ROOT, "reports", "figures")
    drawn = [f for f in sorted(os.listdir(folder)) if f.endswith(".svg")]
    assert len(drawn) > 100
    holes = [f for f in drawn if ">none<" in open(os.path.join(folder, f), encoding="utf-8").read()]
    assert holes == []


def _broken_hardware(src_name, dst_dir, change):
    import gzip

    with gzip.open(os.path.join(ROOT, "reports", "synthetic", src_name), "rt") as fh:
        d = json.load(fh)
    _hardware_header(d)
    change(d)
    dst = os.path.join(dst_dir, src_name)
    with gzip.open(dst, "wt") as fh:
        json.dump(d, fh)
    return dst


@pytest.mark.parametrize("spec, name, change, message", [
    ("m16n8k16", "m16n8k16.row.col.f32.bf16.bf16.f32.dump.json.gz",
     lambda d: d["registers"]["A"].update(data="!!!notbase64"), "registers.A.data is not base64"),
    ("ldmatrix.m8n8", "ldmatrix.m8n8.x1.b16.movement.json.gz",
     lambda d: d["arrays"]["image"].update(dtype="u16"), "at arrays.image.dtype: 'u16' is not one of ['u8', 'u32']"),
    ("m64nNk16", "m64n24k16.f16.f16.f16.a_shared.wgmma.json.gz",
     lambda d: d.update(seed=-1), "at seed: -1 is less than the minimum"),
])
def test_a_malformed_dump_fails_the_report_as_it_fails_crosscheck(run, tmp_path, spec, name, change, message):
    """It was left out of the count: the report exited 0 saying no hardware dump was recorded yet."""
    from checker.errors import SpecError
    from checker.probe import agreement

    path = _broken_hardware(name, str(tmp_path), change)
    with pytest.raises(SpecError) as caught:
        agreement.hardware_agreement([os.path.join(SPECS, spec + ".yaml")], str(tmp_path))
    assert str(caught.value).startswith(f"{path}:1:1: error: {message}")
    assert "1 malformed in" in str(caught.value)


def test_the_report_exits_3_on_a_malformed_hardware_dump(run, tmp_path):
    dumps = tmp_path / "hw"
    dumps.mkdir()
    path = _broken_hardware("m16n8k16.row.col.f32.bf16.bf16.f32.dump.json.gz", str(dumps),
                            lambda d: d["registers"]["A"].update(data="!!!notbase64"))
    r = run("report", os.path.join(SPECS, "m16n8k16.yaml"), "--out", str(tmp_path), "--dumps", str(dumps))
    assert r.code == 3 and f"{path}:1:1: error: registers.A.data is not base64" in r.out + r.err
