"""A small document model that the report's pages are written in once and rendered twice: as
Markdown (read on GitHub) and as HTML (opened from disk). Inline text knows two marks only:
`code`, **bold**, *emphasis* and [text](target), where a target `@page#anchor` names another page
of the report."""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass
class Heading:
    level: int
    text: str
    anchor: str


@dataclass
class Para:
    text: str


@dataclass
class Table:
    header: list
    rows: list  # lists of inline text
    align: str | None = None  # one letter per column: l, r, c


@dataclass
class Code:
    text: str
    title: str | None = None


@dataclass
class Pair:
    """Two code blocks meant to be read side by side: the document and the reading."""
    left: Code
    right: Code


@dataclass
class Figure:
    src: str  # relative to the report folder
    alt: str
    caption: str


@dataclass
class Page:
    name: str  # file stem: README, m16n8k16, ...
    title: str
    blocks: list


INLINE = re.compile(r"`([^`]*)`|\[([^\]]+)\]\(([^)\s]+)\)|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*")


# a scheme as a browser reads one: an ASCII letter, then letters, digits, + - ., then ':'
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
SAFE_SCHEMES = ("http", "https", "mailto")


def safe_target(target: str) -> bool:
    """Whether a link target from the text may become a link: another report page (`@page#x`), a
    relative path or `#anchor`, or an http(s) or mailto address. Spec text writes links too, and
    a `javascript:` (or `data:`, `vbscript:`) one would run in the reader's browser; a control
    character could hide a scheme (browsers drop leading ones), so a target with one is refused."""
    if not target.isprintable():
        return False
    m = _SCHEME.match(target)
    return m is None or m.group(1).lower() in SAFE_SCHEMES


def anchor(text: str) -> str:
    """GitHub's rule for heading anchors, which the HTML page follows too, so links agree."""
    s = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return s.replace(" ", "-")
