"""Element lists (`a0, a1, …, a126, a127`) and the clauses that name their last elements and give
the shape's parameter its values (wgmma: `d0, …, dX, dY, dZ, dW where X = N/2 - 4 … N = 8*i where
i = {1, 2, ... , 32}`), parsed with lark like the formulas, never evaluated by Python's eval."""
from __future__ import annotations

import functools
import re

import lark

from checker.bounded import MAX_ELEMENTS, shown
from checker.errors import SpecError
from checker.formula import tables
from checker.formula.evaluate import values as evaluate_values
from checker.formula.parser import MAX_TEXT, memoised, number, parse_expr, raise_located
from checker.source import SourceText, plain


@functools.lru_cache(maxsize=None)
def _elements_parser() -> lark.Lark:
    return tables.load("elements")


def _parse_elements(src: SourceText, params: tuple = ()) -> tuple:
    """`a0, a1, …, a126, a127` -> ('a0', ..., 'a127'); a range is filled in only where both ends
    are written as in the document (two names before the ellipsis, the last after it).

    The wgmma tables write the last elements by name and say what the names are: `d0, d1, d2,
    d3, …, dX, dY, dZ, dW where X = N/2 - 4 ... N = 8*i where i = {1, 2, ... , 32}`. Each name
    is evaluated in the shape's parameter (`params`), and the clause giving the parameter's own
    values must give exactly the spec's."""
    if len(src.text) > MAX_TEXT:
        raise SpecError(src.span(0), f"element list longer than {MAX_TEXT} characters")
    values = dict(params)
    cut = re.search(r"\bwhere\b", src.text)
    listed = src.text[:cut.start()] if cut else src.text
    named = _where_names(src, cut.end(), values) if cut else {}
    try:
        tokens = _element_tokens(listed)
    except lark.exceptions.LarkError as exc:
        raise_located(src, exc, "element list")
    items, by_name = [], set()
    for item, start_pos in tokens:
        if item[1:] in named:
            item = f"{item[0]}{named[item[1:]]}"
            by_name.add(len(items))
        elif item[1:].isalpha():
            raise SpecError(src.span(start_pos), f"element {item} names {item[1:]!r}, which no 'where' clause defines")
        items.append(item)
    out: list[str] = []
    skip = 0
    for k, item in enumerate(items):
        if skip:
            skip -= 1
            continue
        if item.strip(".…") != "":
            out.append(item)
            continue
        if k < 2 or k + 1 >= len(items) or items[k + 1].strip(".…") == "":
            raise SpecError(src.span(0), "an ellipsis must stand between two named elements and a following one")
        prev, nxt = out[-1], items[k + 1]
        letter, lo, hi = prev[0], int(prev[1:]), int(nxt[1:])
        if k + 1 in by_name and hi <= lo:
            # `d0, d1, d2, d3, …, dX, dY, dZ, dW` at N = 8: the named tail is the head itself;
            # the names it shares with the head must be the head's own, in order
            skip = lo - hi + 1
            if len(out) < skip or items[k + 1:k + 1 + skip] != out[-skip:]:
                raise SpecError(src.span(0), f"the elements named after the ellipsis ({', '.join(items[k + 1:])}) "
                                             f"do not continue {', '.join(out)}")
            continue
        step = lo - int(out[-2][1:])
        if nxt[0] != letter or step != 1 or hi <= lo:
            raise SpecError(src.span(0), f"cannot expand the ellipsis between {shown(prev, 24, False)} and "
                            f"{shown(nxt, 24, False)}")
        # counted before expanding: many short ellipses must not build a huge list
        if len(out) + (hi - lo - 1) + (len(items) - k - 1) > MAX_ELEMENTS:
            raise SpecError(src.span(0), f"element list expands to more than {MAX_ELEMENTS} elements")
        out.extend(f"{letter}{n}" for n in range(lo + 1, hi))
    if len(out) > MAX_ELEMENTS:
        raise SpecError(src.span(0), f"element list expands to more than {MAX_ELEMENTS} elements")
    return tuple(out)


@functools.lru_cache(maxsize=1024)
def _element_tokens(listed: str) -> tuple:
    """The names of a list, with their offsets: parsed once per text, whatever the parameter
    (wgmma's list is the same text at every N; only its named tail's values differ)."""
    return tuple((str(t), t.start_pos) for t in _elements_parser().parse(listed).children)


# `X = N/2 - 4`: a capital, then its value up to the next definition; backticks are the
# document's code markup, not text
_DEFINITION = re.compile(r"([A-Z])\s*=\s*(.*?)\s*(?=\b[A-Z]\s*=|$)", re.S)
_RANGE = re.compile(r"(.*?)\s*\bwhere\s+([a-z])\s*=\s*(\{[^}]*\})\s*$", re.S)
# `N = 8*i where i = {1, 2, 3, 4}  = 16*i where i = {3, 4, ..., 15, 16}`: one more set of values
_ALTERNATIVE = re.compile(r"(?<=\})\s*=\s*")


def _definitions(text: str, start: int) -> list:
    """[(name, value, offset)] of a 'where' clause. Where the clause marks its definitions as code
    (the PTX ISA 9.1 text: `X = N/2 - 4`  `Y = N/2 - 3` ...), each code span is one definition, a
    span that begins with `=` continues the one before it, and the words between spans are prose
    (`N` depends on .dtype, as described in the next column.); otherwise a definition runs to the
    next one."""
    spans = [(m.group(1), m.start(1)) for m in re.finditer(r"`([^`]*)`", text)]
    if not spans:
        return [(m.group(1), m.group(2), start + m.start()) for m in _DEFINITION.finditer(text)]
    out = []
    for body, off in spans:
        head = re.fullmatch(r"\s*([A-Z])\s*=\s*(.*?)\s*", body, re.S)
        if head is not None:
            out.append([head.group(1), head.group(2), start + off])
        elif re.fullmatch(r"\s*=.*", body, re.S) and out:
            out[-1][1] += " " + body.strip()
    return [tuple(d) for d in out]


def parameter_values(rhs: str, at) -> set:
    """The values a parameter's clause gives it: `8*i where i = {1, 2, ... , 32}`, or several
    such sets joined by `=` (`8*i where i = {1, 2, 3, 4}  = 16*i where i = {3, 4, ..., 15, 16}`)."""
    said: set = set()
    for part in _ALTERNATIVE.split(rhs.strip()):
        ranged = _RANGE.fullmatch(part)
        if ranged is None:
            raise SpecError(at, "a parameter's clause must give its values ('N = 8*i where i = {1, 2, ... , 32}')")
        over = _set_values(ranged.group(3), at)
        node = parse_expr(plain(ranged.group(1), at))  # parsed once, evaluated at every value of the set
        try:
            said |= {int(x) for x in evaluate_values(node, {ranged.group(2): over}, len(over))}
        except (KeyError, ZeroDivisionError):
            raise SpecError(at, f"{shown(ranged.group(1), 40, False)} must be a number in {ranged.group(2)}") from None
    return said


_CLAUSES: dict = {}


def clause_values(src: SourceText, name: str) -> set | None:
    """The values the parameter `name` is given by a cell: by the `where` clause of an Elements
    cell, or by a Miscellaneous cell that is only the clause; None where the cell gives none.
    Read once per text (a failure is raised each time, with its own position)."""
    key = (src.text, name)
    if key not in _CLAUSES:
        if len(_CLAUSES) >= 1024:
            _CLAUSES.clear()
        _CLAUSES[key] = _clause_values(src, name)
    return _CLAUSES[key]


def _clause_values(src: SourceText, name: str) -> set | None:
    cut = re.search(r"\bwhere\b", src.text)
    start = 0 if re.match(r"[\s`]*" + name + r"\s*=", src.text) else (cut.end() if cut else None)
    if start is None:
        return None
    for found, rhs, off in _definitions(src.text[start:], start):
        if found == name:
            return parameter_values(rhs.replace("`", " "), src.span(off))
    return None


def _where_names(src: SourceText, start: int, params: dict) -> dict:
    """{'X': 60, ...}: the names an element list's 'where' clause defines, at these parameters."""
    named = {}
    for name, rhs, off in _definitions(src.text[start:], start):
        rhs = rhs.replace("`", " ")
        at = src.span(off)
        if name in params:  # the parameter's own values: N = 8*i where i = {1, 2, ... , 32}
            if _RANGE.fullmatch(_ALTERNATIVE.split(rhs.strip())[0]) is None:
                raise SpecError(at, f"{name} is the shape's parameter; its clause must give its values "
                                    "('N = 8*i where i = {1, 2, ... , 32}')")
            said = parameter_values(rhs, at)
            if params[name] not in said:
                raise SpecError(at, f"{name} = {params[name]} is not among the values this clause gives "
                                    f"({min(said)}..{max(said)})")
            continue
        if _RANGE.fullmatch(rhs.strip()) is not None:
            raise SpecError(at, f"{name} is not the shape's parameter; only the parameter ranges over a set")
        if name in named:  # the last one was taken: the list then ended at an element the spec never meant
            raise SpecError(at, f"{name} is defined twice in the 'where' clause; expected one definition of each name")
        named[name] = _value(rhs, params, at)
    return named


def _set_values(text: str, at) -> list:
    """`{1, 2, ... , 32}`, `{1, 2, 3, 4}`, `{3, 4, ..., 15, 16}`: consecutive integers, an ellipsis
    standing between two written ones."""
    items = [x.strip() for x in text.strip()[1:-1].split(",")] if re.fullmatch(r"\{.*\}", text.strip(), re.S) else []
    if len(items) < 2 or not all(re.fullmatch(r"[0-9]{1,4}|\.\.\.|…", x) for x in items):
        raise SpecError(at, f"expected a set like {{1, 2, ... , 32}}, found {shown(text, 40, False)}")
    out: list = []
    for k, x in enumerate(items):
        if x.isdigit():
            out.append(int(x))
        elif k in (0, len(items) - 1) or not items[k - 1].isdigit() or not items[k + 1].isdigit():
            raise SpecError(at, f"an ellipsis must stand between two numbers in {shown(text, 40, False)}")
        elif int(items[k + 1]) - out[-1] > MAX_ELEMENTS:
            raise SpecError(at, f"the set {shown(text, 40, False)} is too large")
        else:
            out.extend(range(out[-1] + 1, int(items[k + 1])))
    if any(b - a != 1 for a, b in zip(out, out[1:])):
        raise SpecError(at, f"the set {shown(text, 40, False)} is not a range of consecutive integers")
    return out


def _value(text: str, env: dict, at) -> int:
    return number(plain(text, at), env)


_elements = memoised("elements", _parse_elements)


def parse_elements(src: SourceText, params: dict | None = None) -> list[str]:
    """`a0, a1, …, a126, a127` -> ['a0', ..., 'a127'] (a list of its own: callers may keep it);
    `params`: the shape's parameter, where the list names elements by it (wgmma's dX)."""
    return list(_elements(src, tuple(sorted((params or {}).items()))))


