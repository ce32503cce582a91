"""Report pages as GitHub-flavoured Markdown, one file per page beside index.html."""
from __future__ import annotations

import re

from checker.report import doc


def _target(target: str) -> str:
    if not target.startswith("@"):
        return target
    page, _, frag = target[1:].partition("#")
    return (f"{page}.md" if page else "") + (f"#{frag}" if frag else "")


# `<` that opens raw HTML (a tag, a comment, a declaration) or an autolink in GitHub's Markdown:
# spec text is not the report's markup, so it is written as text (`i < 2` stays as it is)
_TAG = re.compile(r"<(?=[A-Za-z/!?])")


def text(value: str) -> str:
    """Plain text from the input, with no raw HTML left in it for a Markdown renderer."""
    return _TAG.sub(r"\\<", value)


def code(value: str) -> str:
    """`value` as a one-line Markdown code span: what is not printable (a line break would end the
    paragraph, and a line that starts `<script>` is an HTML block) written as repr escapes, and a
    fence longer than any run of backticks in it, so that none closes it early."""
    one = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(value))
    if "`" not in one:
        return f"`{one}`"
    fence = "`" * (max(len(run) for run in re.findall(r"`+", one)) + 1)
    return f"{fence} {one} {fence}"


def inline(text_: str) -> str:
    out, last = [], 0
    for m in doc.INLINE.finditer(text_):
        out.append(text(text_[last:m.start()]))
        if m.group(1) is not None:  # a code span shows its text as it is, markup and all
            out.append(m.group(0))
        elif m.group(4) is not None:
            out.append(f"**{inline(m.group(4))}**")
        elif m.group(5) is not None:
            out.append(f"*{inline(m.group(5))}*")
        elif doc.safe_target(m.group(3)):
            out.append(f"[{inline(m.group(2))}]({_target(m.group(3))})")
        else:  # a javascript: link, say: the text as written, its brackets escaped, not a link
            out.append("\\[" + text(m.group(2)) + "\\](" + text(m.group(3)) + ")")
        last = m.end()
    out.append(text(text_[last:]))
    return "".join(out)


def _cell(cell: str) -> str:
    return inline(cell).replace("|", "\\|").replace("\n", " ")


def render(page: doc.Page) -> str:
    out = [f"# {text(page.title)}", ""]
    for b in page.blocks:
        if isinstance(b, doc.Heading):
            out += [f"{'#' * b.level} {inline(b.text)}", ""]
        elif isinstance(b, doc.Para):
            out += [inline(b.text), ""]
        elif isinstance(b, doc.Table):
            align = b.align or "l" * len(b.header)
            out.append("| " + " | ".join(_cell(h) for h in b.header) + " |")
            out.append("| " + " | ".join({"l": "---", "r": "---:", "c": ":---:"}[a] for a in align) + " |")
            out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in b.rows]
            out.append("")
        elif isinstance(b, doc.Code):
            out += _code(b)
        elif isinstance(b, doc.Pair):
            out += _code(b.left) + _code(b.right)
        elif isinstance(b, doc.Figure):
            out += [f"![{text(b.alt)}]({b.src})", "", f"*{inline(b.caption)}*", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _code(b: doc.Code) -> list:
    head = [f"{inline(b.title)}:", ""] if b.title else []
    # a fence longer than any run of backticks in the text, so that no line of it closes the block
    fence = "`" * max([3] + [len(r) + 1 for r in re.findall(r"`{3,}", b.text)])
    return head + [fence, b.text.rstrip("\n"), fence, ""]
