"""The report as static HTML pages that open from disk: index.html (the summary) and one page per
report page (the ISA coverage, each spec, the relations), so that a spec or a fragment has an
address of its own (`m16n8k16.html#af16`). Every page carries the same navigation: every page,
and the current page's headings. No script, no server, no web font."""
from __future__ import annotations

from html import escape
from importlib.resources import files

from checker.report import doc

INDEX = "README"  # the page that is index.html
WIDE = 68  # characters of a code line that half the column holds (report.css: 12.5px monospace)


def file_of(page: str) -> str:
    """The HTML file of a report page: index.html for the summary, <name>.html for the others."""
    return "index.html" if page == INDEX else f"{page}.html"


def _target(target: str, here: str) -> str:
    """`@page#anchor` names a report page: a link within this page, or to another page's file."""
    if not target.startswith("@"):
        return escape(target, quote=True)
    page, _, frag = target[1:].partition("#")
    where = "" if page in ("", here) else file_of(page)
    return escape(where + (f"#{frag}" if frag else ""), quote=True) or "#"


def inline(text: str, here: str = INDEX) -> str:
    out, last = [], 0
    for m in doc.INLINE.finditer(text):
        out.append(escape(text[last:m.start()]))
        if m.group(1) is not None:
            out.append(f"<code>{escape(m.group(1))}</code>")
        elif m.group(4) is not None:
            out.append(f"<strong>{inline(m.group(4), here)}</strong>")
        elif m.group(5) is not None:
            out.append(f"<em>{inline(m.group(5), here)}</em>")
        elif doc.safe_target(m.group(3)):
            out.append(f'<a href="{_target(m.group(3), here)}">{inline(m.group(2), here)}</a>')
        else:  # a javascript: link, say: the text as written, not a link
            out.append(escape(m.group(0)))
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


def _block(b, page: str) -> str:
    if isinstance(b, doc.Heading):
        return (f'<h{b.level} id="{escape(b.anchor)}">{inline(b.text, page)}'
                f'<a class="here" href="#{escape(b.anchor)}" aria-label="link to this heading">#</a></h{b.level}>')
    if isinstance(b, doc.Para):
        return f"<p>{inline(b.text, page)}</p>"
    if isinstance(b, doc.Table):
        align = b.align or "l" * len(b.header)
        cls = {"l": "", "r": ' class="r"', "c": ' class="c"'}
        head = "".join(f"<th{cls[a]}>{inline(h, page)}</th>" for h, a in zip(b.header, align))
        body = "".join("<tr>" + "".join(f"<td{cls[a]}>{inline(c, page)}</td>" for c, a in zip(row, align)) + "</tr>"
                       for row in b.rows)
        return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    if isinstance(b, doc.Code):
        return _code(b, page)
    if isinstance(b, doc.Pair):
        # side by side where both fit half the column; one above the other where a line is long
        # (m16n8k256 A's conditions), so that no line has to wrap
        wide = max(len(line) for c in (b.left, b.right) for line in c.text.splitlines() or [""]) > WIDE
        return f'<div class="pair{" wide" if wide else ""}">{_code(b.left, page)}{_code(b.right, page)}</div>'
    if isinstance(b, doc.Figure):
        return (f'<figure><div class="scroll"><img src="{escape(b.src, quote=True)}" alt="{escape(b.alt)}">'
                f"</div><figcaption>{inline(b.caption, page)}</figcaption></figure>")
    raise TypeError(type(b).__name__)  # pragma: no cover


def _code(b: doc.Code, page: str) -> str:
    title = f'<div class="codetitle">{inline(b.title, page)}</div>' if b.title else ""
    return f"<div>{title}<pre>{escape(b.text.rstrip())}</pre></div>"


def _nav(pages: list, here: str, title: str) -> str:
    items = []
    for p in pages:
        if p.name != here:
            items.append(f'<li><a href="{file_of(p.name)}">{inline(p.title, here)}</a></li>')
            continue
        heads = "".join(f'<li><a href="#{escape(b.anchor)}">{inline(b.text, here)}</a></li>'
                        for b in p.blocks if isinstance(b, doc.Heading) and b.level == 2)
        items.append(f'<li><a href="{file_of(p.name)}" aria-current="page"><strong>{inline(p.title, here)}</strong></a>'
                     + (f"<ul>{heads}</ul>" if heads else "") + "</li>")
    return f'<nav><a href="index.html"><strong>{escape(title)}</strong></a><ul>{"".join(items)}</ul></nav>'


def render(pages: list, title: str) -> dict:
    """-> {file name: HTML text}: index.html and one file per other page."""
    css = files("checker.report").joinpath("report.css").read_text(encoding="utf-8")
    out = {}
    for p in pages:
        body = "\n".join(_block(b, p.name) for b in p.blocks)
        head = title if p.name == INDEX else f"{p.title}: {title}"
        out[file_of(p.name)] = (
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{escape(head)}</title>\n<style>\n{css}</style>\n</head>\n<body>\n"
            f"{_nav(pages, p.name, title)}\n<main>\n<h1>{inline(p.title, p.name)}</h1>\n{body}\n"
            "</main>\n</body>\n</html>\n")
    return out
