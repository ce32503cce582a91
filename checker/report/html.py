"""The report as one static index.html that opens from disk: every page's blocks in order, a
table of contents, figures loaded from figures/. No script, no server, no web font."""
from __future__ import annotations

from html import escape
from importlib.resources import files

from checker.report import doc


def _target(target: str) -> str:
    """One HTML page holds every report page, so an anchor is prefixed with its page's."""
    if not target.startswith("@"):
        return escape(target, quote=True)
    page, _, frag = target[1:].partition("#")
    return "#" + escape(doc.anchor(page) + (f"-{frag}" if frag else ""), quote=True)


def inline(text: str) -> str:
    out, last = [], 0
    for m in doc.INLINE.finditer(text):
        out.append(escape(text[last:m.start()]))
        if m.group(1) is not None:
            out.append(f"<code>{escape(m.group(1))}</code>")
        elif m.group(4) is not None:
            out.append(f"<strong>{inline(m.group(4))}</strong>")
        elif m.group(5) is not None:
            out.append(f"<em>{inline(m.group(5))}</em>")
        else:
            out.append(f'<a href="{_target(m.group(3))}">{inline(m.group(2))}</a>')
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


def _block(b, page: str) -> str:
    if isinstance(b, doc.Heading):
        return f'<h{b.level} id="{escape(doc.anchor(page))}-{escape(b.anchor)}">{inline(b.text)}</h{b.level}>'
    if isinstance(b, doc.Para):
        return f"<p>{inline(b.text)}</p>"
    if isinstance(b, doc.Table):
        align = b.align or "l" * len(b.header)
        cls = {"l": "", "r": ' class="r"', "c": ' class="c"'}
        head = "".join(f"<th{cls[a]}>{inline(h)}</th>" for h, a in zip(b.header, align))
        body = "".join("<tr>" + "".join(f"<td{cls[a]}>{inline(c)}</td>" for c, a in zip(row, align)) + "</tr>"
                       for row in b.rows)
        return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    if isinstance(b, doc.Code):
        return _code(b)
    if isinstance(b, doc.Pair):
        return f'<div class="pair">{_code(b.left)}{_code(b.right)}</div>'
    if isinstance(b, doc.Figure):
        return (f'<figure><div class="scroll"><img src="{escape(b.src, quote=True)}" alt="{escape(b.alt)}">'
                f"</div><figcaption>{inline(b.caption)}</figcaption></figure>")
    raise TypeError(type(b).__name__)  # pragma: no cover


def _code(b: doc.Code) -> str:
    title = f'<div class="codetitle">{inline(b.title)}</div>' if b.title else ""
    return f"<div>{title}<pre>{escape(b.text.rstrip())}</pre></div>"


def render(pages: list, title: str) -> str:
    css = files("checker.report").joinpath("report.css").read_text(encoding="utf-8")
    toc = "".join(f'<li><a href="#{doc.anchor(p.name)}">{inline(p.title)}</a></li>' for p in pages)
    body = []
    for p in pages:
        body.append(f'<section id="{doc.anchor(p.name)}"><h1>{inline(p.title)}</h1>')
        body.extend(_block(b, p.name) for b in p.blocks)
        body.append("</section>")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{escape(title)}</title>\n<style>\n{css}</style>\n</head>\n<body>\n"
            f'<nav><strong>{escape(title)}</strong><ul>{toc}</ul></nav>\n<main>\n'
            + "\n".join(body) + "\n</main>\n</body>\n</html>\n")
