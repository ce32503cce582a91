"""provenance: a data-movement layout the document draws only (ldmatrix, stmatrix, movmatrix, tcgen05) is read
from published encodings, and its `read_from` names them; each named encoding, as transcribed in
checker/references/data/, is the reading, cell for cell:

    reading(lane, i) == encoding(lane, i)   for every lane and element of either

The loader holds each name to an entry of the data (checker/spec/provenance.py), but a name says
nothing of what the reading is: a `.trans` layout given the non-transposed formula, or an `.x4`
whose matrices are swapped, kept its names and passed every check of `prove` (only the tests and
`checker conformance` compared the two). Both engines decide each equation (checker/compare), so
a refutation comes with the smallest (lane, i) and both cells.

wgmma's readings name their sources too; they are tied to mma.sync's fragments, warp by warp, by
the warpgroup theorems, and their published encodings (JAX's tiled layouts at every N among them)
take seconds to compare: `checker conformance` compares them."""
from __future__ import annotations

import os
import time

from checker.errors import CheckerError, SpecError
from checker.loading import load_error
from checker.results import PROVED, REFUTED, UNKNOWN, Result
from checker.theorems.family import TheoremFamily

PROPERTY = "provenance"


_PARSED: dict = {}  # path -> (its identity when parsed, its entries)


def _entries(path: str) -> tuple:
    """The entries of one data file, encodings parsed: again only once the file was edited
    (refdata.held), its bytes read once however many readers ask (refdata.held_bytes)."""
    from checker.references.load import load_file
    from checker.spec.refdata import held

    return held(_PARSED, path, lambda p: tuple(load_file(p)))


def _named(shape: str, fid: str) -> dict:
    """`library name` -> the entries of the shipped data for this spec's fragment. Only the data
    files that hold an entry of it are read (the loader has their raw values already)."""
    from checker.references.load import DATA
    from checker.spec.provenance import holding

    out: dict = {}
    for stem in holding(shape, fid):
        for ref in _entries(os.path.join(DATA, stem + ".yaml")):
            if (ref.spec, ref.fragment) == (shape, fid):
                out.setdefault(f"{ref.library} {ref.name}", []).append(ref)
    return out


def prove(spec, readings, opts) -> list:
    out = []
    for f in spec.fragments():
        if not f.read_from:
            continue
        at = str(f.formula.span(0)) if f.formula is not None else str(f.span)
        reading = readings.get(f.id)
        if reading is None or reading.layout is None:
            continue  # the fragment's own results say why it has no layout
        try:
            named = _named(spec.shape, f.id)
        except SpecError as exc:
            out.append(load_error(spec.path, exc).but(subject=f"{f.id} read from"))
            continue
        decided: dict = {}
        for name in f.read_from:
            for ref in named.get(name, ()):
                out.append(_judged(spec, f, reading, ref, name, at, decided))
    return out


def _judged(spec, f, reading, ref, name: str, at: str, decided: dict) -> Result:
    from checker.compare import engine
    from checker.references.conformance import candidate, computation_of

    subject = f"{f.id} read from {name}"
    t0 = time.perf_counter()
    try:
        cand, computation = candidate(ref.encoding, f), computation_of(ref, f)
        # one equation, decided once: CuTe defines each TMEM STORE atom's layouts as its LOAD
        # atom's (copy_traits_sm100.hpp), so both entries state one candidate
        key = (cand, computation)
        result, first = decided.get(key) or (engine.run(spec.shape, f, reading, cand, computation), name)
        decided[key] = result, first
    except SpecError as exc:
        return load_error(spec.path, exc).but(subject=subject)
    except CheckerError as exc:  # the engines disagree, or z3 could not decide: never a verdict
        return Result(spec.path, None, PROPERTY, UNKNOWN, time.perf_counter() - t0, at, subject=subject,
                      message=f"not decided: {exc}")
    seconds = time.perf_counter() - t0
    where = f"{ref.file}:{getattr(ref.span, 'line', '?')}"
    if result.equal:
        same = "" if first == name else f" (the same layouts as {first}, decided once)"
        return Result(spec.path, None, PROPERTY, PROVED, seconds, at, subject=subject,
                      message=f"{f.id} is {name} ({where}) at all {result.points} points: z3 proved it, the "
                              f"enumeration agrees{same}")
    d = result.difference
    sentence = d.sentence(f.operand).replace("the candidate", name)
    return Result(spec.path, None, PROPERTY, REFUTED, seconds, at,
                  {"point": {"%laneid": d.thread, "i": d.i}, "spec": list(d.spec) if d.spec else None,
                   "encoding": list(d.candidate) if d.candidate else None, "message": sentence},
                  subject=subject,
                  message=f"{f.id} is not {name}, which its read_from names ({where}): it differs at "
                          f"{result.differing} of {result.points} points; the first: {sentence}")


FAMILY = TheoremFamily("provenance", 68, "A layout read from published encodings is each encoding its "
                       "read_from names, cell for cell", ("ldmatrix", "stmatrix", "movmatrix", "tcgen05"),
                       lambda a: prove(a.spec, a.readings, a.opts))
