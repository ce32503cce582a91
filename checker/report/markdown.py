"""Report pages as GitHub-flavoured Markdown, one file per page beside index.html."""
from __future__ import annotations

from checker.report import doc


def _target(target: str) -> str:
    if not target.startswith("@"):
        return target
    page, _, frag = target[1:].partition("#")
    return (f"{page}.md" if page else "") + (f"#{frag}" if frag else "")


def inline(text: str) -> str:
    def sub(m):
        if m.group(3) is None:
            return m.group(0)
        return f"[{m.group(2)}]({_target(m.group(3))})"

    return doc.INLINE.sub(sub, text)


def _cell(text: str) -> str:
    return inline(text).replace("|", "\\|").replace("\n", " ")


def render(page: doc.Page) -> str:
    out = [f"# {page.title}", ""]
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
            out += [f"![{b.alt}]({b.src})", "", f"*{inline(b.caption)}*", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _code(b: doc.Code) -> list:
    head = [f"{inline(b.title)}:", ""] if b.title else []
    return head + ["```", b.text.rstrip("\n"), "```", ""]
