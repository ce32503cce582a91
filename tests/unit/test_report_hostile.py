"""The report of hostile spec text: a link whose target would run (javascript:, data:, a scheme
hidden behind a control character) is no link in the HTML nor in the Markdown, and raw HTML in
the text (`<script>`) is text in the Markdown pages and errata.md as it is in the HTML."""
import os
import re

import pytest

from conftest import SPECS

from checker.report import doc, errata, html, markdown

UNSAFE = ["javascript:document.body.innerHTML=1337", "JavaScript:alert(1)", "data:text/html,x", "vbscript:x",
          "\x01javascript:alert(1)", "java\x00script:x"]
SAFE = ["https://example.com/a", "http://x.org", "mailto:a@b.c", "#ab1", "m16n8k16.html#af16", "../specs/x.yaml",
        "@m16n8k16#af16"]


@pytest.mark.parametrize("target", UNSAFE)
def test_an_unsafe_link_is_text(target):
    text = f"see [click]({target}) here"
    assert not doc.safe_target(target)
    assert "<a " not in html.inline(text) and "[click]" in html.inline(text)
    md = markdown.inline(text)
    assert "\\[click\\](" in md and not re.search(r"(?<!\\)\[click\]\(", md)


@pytest.mark.parametrize("target", SAFE)
def test_a_safe_link_stays_a_link(target):
    assert doc.safe_target(target)
    assert '<a href="' in html.inline(f"[x]({target})", "README")
    assert markdown.inline(f"[x]({target})").startswith("[x](")


def test_raw_html_in_markdown_is_text_and_formulas_stay_as_they_are():
    assert markdown.inline("a <script>alert(1)</script> b") == "a \\<script>alert(1)\\</script> b"
    assert markdown.inline("<!-- x --> <?php <img src=x onerror=alert(1)>") == "\\<!-- x --> \\<?php \\<img src=x onerror=alert(1)>"
    assert markdown.inline("i < 2 and `<b>` stays in code") == "i < 2 and `<b>` stays in code"
    assert markdown.inline("**<b>x</b>**") == "**\\<b>x\\</b>**"
    page = doc.Page("p", "<script>t</script>", [doc.Code("```\n<script>x</script>\n````", "c"),
                                                doc.Figure("f.svg", "<img>", "<script>")])
    out = markdown.render(page)
    assert out.startswith("# \\<script>t\\</script>\n")
    assert "\n`````\n```\n<script>x</script>\n````\n`````\n" in out  # the fence outlasts the text's
    assert "![\\<img>](f.svg)" in out and "*\\<script>*" in out


def test_an_errata_code_span_cannot_be_closed_by_the_text():
    assert errata._code("a``b") == "``` a``b ```" and errata._code("a`b") == "`` a`b ``" and errata._code("ab") == "`ab`"


def test_the_report_of_a_hostile_erratum(run, tmp_path):
    text = open(os.path.join(SPECS, "m16n8k256.yaml")).read()
    assert "that Figure 100 draws:" in text
    evil = "[click](javascript:document.body.innerHTML=1337) <script>alert(1)</script>"
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "m16n8k256.yaml").write_text(text.replace("that Figure 100 draws:", f"that Figure 100 draws: {evil}"))
    out = tmp_path / "out"
    r = run("report", str(tmp_path / "x"), "--out", str(out))
    assert r.code == 0, r.err + r.out
    page = (out / "m16n8k256.html").read_text()
    assert "javascript:document" in page and 'href="javascript' not in page and "<script>" not in page
    for md in ("m16n8k256.md", "errata.md"):
        body = (out / md).read_text()
        assert "\\[click\\](javascript:" in body and "\\<script>alert(1)\\</script>" in body, md


def test_a_markdown_code_span_holds_any_text_on_one_line():
    assert markdown.code("a") == "`a`" and markdown.code("a`b") == "`` a`b ``" and markdown.code("``") == "``` `` ```"
    assert markdown.code("x\n<script>y") == "`x\\n<script>y`"


def test_diff_markdown_of_a_hostile_path(run, tmp_path):
    """The diff's Markdown is a PR comment: a path with a backtick, a line break and a tag stays
    in its code span, on its line."""
    folder = tmp_path / "a`b\n<script>alert(1)"
    folder.mkdir()
    spec = folder / "m8n8k4.yaml"
    spec.write_text(open(os.path.join(SPECS, "m8n8k4.yaml")).read())
    r = run("diff", os.path.join(SPECS, "m8n8k4.yaml"), str(spec), "--format", "markdown")
    assert r.code == 0, r.err
    heading = [line for line in r.out.splitlines() if line.startswith("#### ")]
    assert heading and all("<script>" not in line or line.startswith("#### ``") for line in r.out.splitlines())
    assert not any(line.startswith("<script>") for line in r.out.splitlines())


def test_the_emitted_readme_quotes_the_command_in_a_span_it_cannot_close(run, tmp_path):
    folder = tmp_path / "p`q\n<script>"
    folder.mkdir()
    spec = folder / "m16n8k16.yaml"
    spec.write_text(open(os.path.join(SPECS, "m16n8k16.yaml")).read())
    r = run("probe", str(spec), "--emit-ptx", str(tmp_path / "out"))
    assert r.code == 0, r.err
    first = (tmp_path / "out" / "README.md").read_text().split("\n\n")[1]
    assert first.startswith("Written by `` checker probe ") and "p`q\\n<script>" in first.splitlines()[0]
