"""A fragment's texts with its errata applied: the reading the checker proves, or, for one
erratum, the document as printed (that erratum undone, every other one applied)."""
from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass

from checker.errors import SpecError
from checker.formula.bounds import Bounds
from checker.formula.lower import Layout, check_element_names, lower
from checker.formula.elements import parse_elements
from checker.formula.parser import parse_block
from checker.spec import model
from checker.source import SourceText


@dataclass(frozen=True)
class Reading:
    """A fragment as the checker reads it: the corrected text, or one erratum's printed one."""

    fragment: model.Fragment
    reverted: model.Erratum | None
    header: str
    elements: tuple  # per table row: list of names, or None where the document's cell is empty
    layout: Layout | None
    width: int
    n: int
    syntax: SpecError | None  # what the printed text of the reverted erratum fails to parse with


def _texts(fragment: model.Fragment, revert):
    formula, header = fragment.formula, fragment.header
    # a row under a merged cell reads the spanning row's list (a sparse A's note is no list)
    elements = [row.elements if row.elements is not None or fragment.sparsity is not None else row.spanned_by
                for row in fragment.table]
    for e in fragment.errata:
        if e is revert or e.field in model.WORD_FIELDS:  # captions and Fragment cells: words, no layout
            continue
        if e.field == "formula":
            formula = formula.replace_once(e.printed, e.value, e.span)
        elif e.field == "header":
            header = header.replace_once(e.printed, e.value, e.span)
        elif elements[e.row] is None:  # the document's empty cell, read as the list the erratum gives
            elements[e.row] = e.value
        else:
            elements[e.row] = elements[e.row].replace_once(e.printed, e.value, e.span)
    # the printed text must be found where the erratum says it is (words: no layout text to look in)
    if revert is not None and revert.printed and revert.field not in model.WORD_FIELDS:
        probe = {"formula": formula, "header": header}.get(revert.field) or elements[revert.row]
        probe.replace_once(revert.printed, revert.value, revert.span)
    return formula, header, elements


def element_sources(fragment: model.Fragment, revert=None) -> list:
    """Each table row's element list as read (its errata applied; `revert`: that one undone), with
    the file position of every character: the printed cell's, or the erratum value's where one
    gives the list (an empty cell's erratum), so a message about the list points at the text read."""
    return _texts(fragment, revert)[2]


def header(fragment: model.Fragment) -> str:
    """The table header with its errata applied, without parsing the formula."""
    return _texts(fragment, None)[1].text


def formula_source(fragment: model.Fragment) -> SourceText:
    """The formula block with its errata applied: the reading, with every character's position."""
    return _texts(fragment, None)[0]


def formula(fragment: model.Fragment) -> str:
    return formula_source(fragment).text


# (fragment, reading): the readings the mutation campaign puts in place of a fragment's for a block
_SUBSTITUTED: list = []


def materialize(fragment: model.Fragment, revert: model.Erratum | None = None, n: int | None = None) -> Reading:
    """The fragment's reading (`revert`: with that erratum undone, the printed text; `n`: at that
    value of the shape's parameter)."""
    if revert is None and n is None:
        for substitute, reading in reversed(_SUBSTITUTED):
            if substitute is fragment:
                return reading
    return _materialize(fragment, revert, n)


def as_printed(fragment: model.Fragment, k: int) -> Reading:
    """The document's text as the fragment's K-th erratum (1-based) says it is printed, the
    reading of every other erratum applied: what `--as-printed K` evaluates (eval, where), so a
    refutation of the printed text replays like one of the reading."""
    from checker.errors import UsageError

    n = len(fragment.errata)
    if not n:
        raise UsageError(f"{fragment.id} has no erratum: its printed text is the reading; --as-printed asks about "
                         "a fragment with one (`checker errata` lists them)")
    if not 1 <= k <= n:
        raise UsageError(f"{fragment.id} has {n} errat{'um' if n == 1 else 'a'}; --as-printed takes "
                         + ("1" if n == 1 else f"1..{n}"))
    if fragment.errata[k - 1].words:
        # its printed text changes no layout: the answer would be the reading's, said as the printed one's
        layout = [str(j) for j, e in enumerate(fragment.errata, 1) if not e.words]
        raise UsageError(f"erratum {k} of {fragment.id} is of its words ({fragment.errata[k - 1].field}): the layout is "
                         "the same as printed; --as-printed takes an erratum of its layout"
                         + (f" ({', '.join(layout)})" if layout else " (it has none)"))
    printed = materialize(fragment, fragment.errata[k - 1], materialize(fragment).n)
    if printed.layout is None:
        raise SpecError(printed.syntax.span, "the printed text does not parse: " + printed.syntax.message)
    return printed


@contextmanager
def substituted(fragment: model.Fragment, reading: Reading):
    """Everything that reads `fragment` in this block reads `reading` instead: the mutation
    campaign runs a mutant through code (the reference model, crosscheck) that reads layouts by
    fragment, not by reading."""
    _SUBSTITUTED.append((fragment, reading))
    try:
        yield
    finally:
        _SUBSTITUTED.pop()


def _materialize(fragment, revert, n) -> Reading:
    formula, header, element_texts = _texts(fragment, revert)
    syntax = None

    def guarded(field, fn, *args):
        nonlocal syntax
        if revert is None or revert.field != field:
            return fn(*args)
        try:
            return fn(*args)
        except SpecError as exc:
            syntax = exc
            return None

    params = dict(fragment.params)
    elements = tuple(None if t is None else guarded("elements", parse_elements, t, params) for t in element_texts)
    sparse = fragment.sparsity
    if n is None:
        n = fragment.table[0].count * sparse.per_register if sparse else len(elements[0])
    layout = guarded("formula", _layout, formula, fragment, params) if formula is not None else None
    if layout is not None:
        guarded("formula", check_element_names, layout, fragment.letter, n)
    # wide enough for every value the formulas reach and every limit they are compared with
    limit = max(fragment.rows, fragment.cols, fragment.sparsity.k if sparse else 0)
    width = max(Bounds(layout, (0, fragment.threads.count - 1), n).bits(), limit.bit_length() + 2) \
        if layout is not None else 0
    return Reading(fragment, revert, header.text, elements, layout, width, n, syntax)


_LOWERED: dict = {}


def _layout(formula, fragment, params) -> Layout:
    """Lowered once for every instance of a parametric fragment whose formula does not name the
    parameter (wgmma D at 32 values of N): one Layout, which the engines then decide once."""
    used = tuple(sorted((k, v) for k, v in params.items() if re.search(rf"\b{re.escape(k)}\b", formula.text)))
    key = (formula.text, str(formula.span(0)), fragment.letter, fragment.sparsity, fragment.threads, used)
    hit = _LOWERED.get(key)
    if hit is None:
        hit = lower(parse_block(formula), formula, fragment.letter, fragment.sparsity, fragment.threads, params)
        if len(_LOWERED) >= 4096:
            _LOWERED.clear()  # a mutation campaign lowers thousands of texts: stay bounded
        _LOWERED[key] = hit
    return hit
