"""Where a transcribed caption or sentence starts and ends. Cut at a word boundary, a caption or
a sentence still reads as the document's words, so found as a part of the running text it would
pass: a caption is its figure's caption in the document whole (checker/verbatim/document.py reads
each, markup and whitespace normalised as everywhere), and a sentence runs from where one of the
document's starts (its paragraph, list item or table cell, or after a sentence's end) to where it
ends, at its full stop, or where its paragraph or its table cell ends. Where one is not whole,
what the document's sentence begins or goes on with is what the error says.
"""
from __future__ import annotations

from checker.bounded import shown
from checker.verbatim import normalise as nm

_STOPS = ".!?"
_CLOSERS = ")]\"'”’"  # may follow a full stop inside its sentence: `(... type.)`
_REST = 240  # characters of the document's text sought for a sentence's end past a field's end
# a full stop inside a sentence: "e.g. the upper half" goes on
_ABBREVIATIONS = ("e.g", "i.e", "cf", "vs")


def ends_sentence(hay: str, end: int) -> bool:
    """Whether a sentence of the running text `hay` may end at offset `end`: after a full stop
    (or `!`, `?`), a closing bracket or quote after it, before a space; or where the text, its
    paragraph or its table cell ends (a `stated:` table row ends with its last cell's edge)."""
    if end >= len(hay) or hay[end] in (nm.GAP, nm.SEP):
        return True
    k = end - 1
    while k >= 0 and hay[k] in _CLOSERS:
        k -= 1
    if hay[end] != " " or k < 0 or hay[k] not in _STOPS:
        return False
    j = k
    while j > 0 and hay[j - 1] not in (" ", nm.GAP, nm.SEP):  # the word the stop ends, at a paragraph's start too
        j -= 1
    return hay[j:k].lstrip("(").lower() not in _ABBREVIATIONS


def starts_sentence(hay: str, start: int) -> bool:
    """Whether a sentence of the running text may start at offset `start`: where the text, its
    paragraph or its table cell starts, or after a space that follows a sentence's end."""
    return start == 0 or hay[start - 1] in (nm.GAP, nm.SEP) or ends_sentence(hay, start - 1)


def cut_short(text: str, pool: list):
    """Where `text` stands in the running text of `pool` ([(DocFile, regions)]), not starting
    inside a word, but starting after the document's sentence starts or stopping before it ends:
    (the document's sentence around it, the file, the offset in it), or None."""
    if not text:
        return None
    for f, regs in pool:
        hay, origins = f.prose, f.prose_origins
        k = hay.find(text)
        while k >= 0:
            end = k + len(text)
            inside = text[0].isalnum() and k > 0 and hay[k - 1].isalnum()
            whole = starts_sentence(hay, k) and ends_sentence(hay, end)
            if not inside and not whole and any(a <= origins[k] < b for a, b in regs):
                low = max(0, k - _REST)
                begin = next((j for j in range(k, low - 1, -1) if starts_sentence(hay, j)), low)
                limit = min(len(hay), end + _REST)
                stop = next((j for j in range(end, limit + 1) if ends_sentence(hay, j)), limit)
                return hay[begin:stop], f, origins[begin]
            k = hay.find(text, k + 1)
    return None


def own_caption(field, text: str) -> bool:
    """Whether `text` is a caption of the field's own figure (`Figure 100 ...`)."""
    return field.figure is not None and text.startswith(f"Figure {field.figure} ")


def why(field, text: str, near: str) -> str | None:
    """What is wrong with a caption or a sentence (`text`, normalised) that the document's
    nearest text `near` does not match: cut short, empty, or another figure's; None where
    nothing more than "not in the document" can be said."""
    caption = field.figure is not None
    if caption and not own_caption(field, near):
        return None
    if caption and text == f"Figure {field.figure}":
        return f"an empty caption: the document's caption of Figure {field.figure} is " \
               f"{shown(near[len(text):].strip(), 100)}"
    noun = f"caption of Figure {field.figure}" if caption else "table row" if text.endswith(nm.SEP) else "sentence"
    if len(near) > len(text) and near.startswith(text):
        rest = near[len(text):].replace(nm.SEP, " | ").strip()
        return f"cut short: the document's {noun} continues with {shown(rest, 100)}"
    if not caption and len(near) > len(text) and text in near:
        before, after = near.split(text, 1)
        said = f"cut at its start: the document's {noun} begins with {shown(before.replace(nm.SEP, ' | ').strip(), 100)}"
        rest = after.replace(nm.SEP, " | ").strip()
        return said + (f", and goes on with {shown(rest, 100)}" if rest else "")
    return f"not the document's caption of Figure {field.figure}" if caption else None
