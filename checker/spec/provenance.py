"""Where a reading of a figure says it was read from, held to the reference data that transcribes
it (checker/references/data/): a wgmma reading's `sources` and a movement layout's `read_from`; a
container reading's `read_from` held to the upstream lines kept in checker/references/excerpts.yaml;
and where a section says another version of the document prints a row otherwise, held to the
section's own tables.

Nothing in the document can check a pin (repository, commit, file, line) or the name of a published
encoding, but the data files transcribe each one the tests and `checker conformance` prove the
reading equal to. A pin that is none of theirs (a line off by one, another file's path, another
library's commit), a name that is another layout's, or an entry that is another fragment's (proved
equal to that fragment only) would pass every proof while the spec says it was read from somewhere
it was not, so the loader holds each to the data.
"""
from __future__ import annotations

import os
import re

from checker.errors import SpecError
from checker.spec import model

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "references", "data")
EXCERPTS = os.path.join(os.path.dirname(DATA), "excerpts.yaml")


def _data() -> dict:
    """stem -> the data file's top-level values (library, repo, commit, path, entries), read again
    only where a file of the folder was edited, added or removed (refdata.identity). Every field
    read here is first held to its type by the data's own loader (an entry's line given as "836"
    or [836], a file without a library, had ended the spec's load in a TypeError or KeyError): a
    data file that does not load is its own located error, raised to the spec that reads the data
    (its encodings are `checker conformance`'s to check)."""
    return _held("data", _data_files(), _read_data)


# what was read, by what the files were when it was read: {what: (identities, (value, refusal))}
_READ: dict = {}


def _held(what: str, files: tuple, read):
    """What `read()` gives for these files as they are now: read again where any file changed
    (stat: refdata.identity), else kept; a refusal is kept too, and raised again to each spec that
    reads it (each reader is told). An edit in a long-lived process (`import checker`) is seen at
    the next load or proof; within one, nothing is read twice."""
    from checker.spec.refdata import identity

    key = tuple((f, identity(f)) for f in files)
    kept = _READ.get(what)
    if kept is None or kept[0] != key:
        kept = _READ[what] = (key, read(files))
    value, refused = kept[1]
    if refused is not None:
        raise refused
    return value


def _data_files() -> tuple:
    try:
        names = sorted(os.listdir(DATA))
    except OSError:
        names = []
    return tuple(os.path.join(DATA, n) for n in names if n.endswith(".yaml") and not n.startswith("."))


def _read_data(files: tuple) -> tuple:
    from checker.spec import refdata

    out = {}
    for path in files:
        try:
            doc, _entries = refdata.read(path)
        except SpecError as exc:
            return {}, exc
        out[os.path.basename(path)[:-5]] = doc.value
    return out, None


def generation() -> tuple:
    """What a spec's load read beside the spec, as stat says it is now: the data files and the
    excerpts. A spec kept by its bytes (spec/load.py) is kept only while this holds too: its
    readings' sources were held to these files."""
    from checker.spec.refdata import identity

    return tuple((f, identity(f)) for f in _data_files() + (EXCERPTS,))


def holding(shape: str, fid: str) -> list:
    """The stems of the data files that hold an entry of this spec's fragment (the provenance
    theorems read only those)."""
    return [stem for stem, value in sorted(_data().items())
            if any(isinstance(e, dict) and isinstance(e.get("fragment"), dict)
                   and (e["fragment"].get("spec"), e["fragment"].get("id")) == (shape, fid) for e in value["entries"])]


def _excerpts() -> list:
    """The upstream lines container readings quote (checker/references/excerpts.yaml), read again
    only once edited and held to its form (pins written [[211, [224]]] or 5 had ended the spec's
    load in a TypeError, and a pin past the lines copied was taken): a file that does not load is
    its own located error."""
    return _held("excerpts", (EXCERPTS,), _read_excerpts)


def _read_excerpts(files: tuple) -> tuple:
    from checker.spec.refdata import read_excerpts

    try:
        return read_excerpts(files[0]), None
    except SpecError as exc:
        return [], exc


def excerpts(meaning, read_from: list, path: list) -> None:
    """Each place a container reading was read from (checker/spec/containers.py) is one the project
    holds a copy of: its repository, commit and file, and its lines one of the ranges cited there."""
    held = _excerpts()
    for k, s in enumerate(read_from):
        at, same = path + [k], held
        for key in ("path", "repo", "commit"):
            narrower = [x for x in same if x.get(key) == s[key]]
            if not narrower:
                raise SpecError(meaning.span(at + [key]), f"checker/references/excerpts.yaml holds no lines of {key} "
                                f"{s[key]!r}" + (" with this source's path" if same is not held else ""))
            same = narrower
        pins = sorted({tuple(p) for x in same for p in x.get("pins", ()) if isinstance(p, list)})
        if tuple(s["lines"]) not in pins:
            raise SpecError(meaning.span(at + ["lines"]), f"checker/references/excerpts.yaml cites lines "
                            f"{', '.join(f'{lo}-{hi}' for lo, hi in pins)} of {s['path']}, not {s['lines'][0]}-{s['lines'][1]}")


def standing(meaning, x: dict, path: list, fid: str, figure: str) -> model.FigureReading:
    """A reading of a figure with its standing: agreed names the sources that encode it, each held
    to the data (`sources`); extrapolated names none. A wgmma fragment's `reading:` and each
    standing of a block-scale factor's."""
    given = x.get("sources") or []
    if x["standing"] == "agreed" and not given:
        raise SpecError(meaning.span(path + ["sources"]), "an agreed reading names the sources that agree on it")
    if x["standing"] == "extrapolated" and given:  # extrapolated: no published encoding covers it
        raise SpecError(meaning.span(path + ["standing"]), "an extrapolated reading is one no source encodes; this "
                        f"one names {len(given)} (agreed: the sources encode it)")
    sources(meaning, x, path, fid)
    held = tuple(model.Source(s["library"], s["repo"], s["commit"], s["path"], s["line"], s["name"], s.get("reference"))
                 for s in given)
    return model.FigureReading(figure, x["standing"], held, x.get("note"), meaning.span(path))


def sources(meaning, reading: dict, path: list, fid: str) -> None:
    """Each source of a wgmma reading: some data file of its library, repository and upstream path
    (the one its `reference:` names, where it names one) is at its commit and has an entry at its
    line, named once, that is an entry of the fragment `fid` whose reading this is."""
    data, given = _data(), reading.get("sources") or []
    for k, s in enumerate(given):
        at = path + ["sources", k]
        pin = tuple(s.get(key) for key in ("library", "repo", "commit", "path", "line"))
        if pin in [tuple(t.get(key) for key in ("library", "repo", "commit", "path", "line")) for t in given[:k]]:
            raise SpecError(meaning.span(at + ["line"]), f"{s['library']} {s['path']} line {s['line']} is named twice")
        ref = s.get("reference")
        if ref is not None and ref not in data:
            raise SpecError(meaning.span(at + ["reference"]), f"no reference data file {ref!r} "
                            f"(checker/references/data: {', '.join(sorted(data))})")
        files, matched = sorted(data), []
        for key in ("path", "repo", "commit", "library"):
            same = [f for f in files if data[f].get(key) == s[key]]
            if not same:
                had = sorted({str(data[f].get(key)) for f in files})
                with_ = f" with this source's {' and '.join(matched)} ({', '.join(had[:3])})" if matched else ""
                raise SpecError(meaning.span(at + [key]), f"no reference data file transcribes {key} {s[key]!r}{with_}")
            files, matched = same, matched + [key]
        if ref is None and len(files) > 1:  # else a line of either would do, and the pin says neither
            raise SpecError(meaning.span(at + ["library"]), f"{' and '.join(files)} both transcribe {s['path']} at "
                            f"{s['commit'][:12]}: name the one read from with reference:")
        if ref is not None:
            if ref not in files:
                raise SpecError(meaning.span(at + ["reference"]), f"{ref} does not transcribe {s['path']} at "
                                f"{s['commit'][:12]} (path at line {meaning.span(at + ['path']).line}); "
                                f"{', '.join(files)} does")
            files = [ref]
        lines = sorted({e.get("line") for f in files for e in data[f]["entries"] if isinstance(e, dict)} - {None})
        if s["line"] not in lines:
            raise SpecError(meaning.span(at + ["line"]), f"{', '.join(files)} has no entry at line {s['line']} of "
                            f"{s['path']} (its lines: {', '.join(map(str, lines[:12]))})")
        at_line = [e for f in files for e in data[f]["entries"] if isinstance(e, dict) and e.get("line") == s["line"]]
        there = sorted({_symbol(e.get("name"), entry=True) for e in at_line} - {()})
        mine = _symbol(s.get("name"))
        if not any(_ends(mine, t) for t in there):
            raise SpecError(meaning.span(at + ["name"]), f"the entry at line {s['line']} of {s['path']} is "
                            f"{' or '.join('::'.join(t) for t in there)}, which this source's name "
                            f"{'::'.join(mine) or repr(s.get('name'))} does not end with")
        named = [e for e in at_line if _ends(mine, _symbol(e.get("name"), entry=True))]
        _of_this_fragment(meaning, at, s, files, named, (meaning.doc.value["shape"], fid))


def _ends(mine: tuple, entry: tuple) -> bool:
    """A source's symbol names an entry's where it ends with it (a qualifier may stand in front)."""
    return bool(entry) and len(entry) <= len(mine) and mine[len(mine) - len(entry):] == entry


def _of_this_fragment(meaning, at: list, s: dict, files: list, named: list, fragment: tuple) -> None:
    """The entry a source names at its line is attached to the fragment whose reading cites it (any
    instance of it: CLayout_64xN<N> has one entry per N). An entry is proved equal to its own fragment
    only, so a source copied from a neighbouring reading (A's ALayout into D's, m64nNk16's D into
    m64nNk32's) names an entry that exists, at that line and under that name, while nothing proves
    it is this fragment's layout (m64nNk256's .b1 D cited Mosaic GPU's 32-bit accumulator so, though
    Mosaic GPU issues no .b1 wgmma)."""
    attached = sorted({_fragment_of(e) for e in named})
    if fragment in attached:
        return
    symbol = " or ".join(sorted({"::".join(_symbol(e.get("name"), entry=True)) for e in named}))
    raise SpecError(meaning.span(at + ["line"]), f"expected an entry of {' '.join(fragment)} at line {s['line']} "
                    f"of {s['path']} ({', '.join(files)}), found {symbol} there for "
                    f"{', '.join(' '.join(x) for x in attached)} only: cite what {' '.join(fragment)} was read "
                    f"from, or give the data an entry of it")


def _fragment_of(entry: dict) -> tuple:
    """(spec, fragment id) an entry of the data is attached to, its instance (params) left out."""
    f = entry.get("fragment") if isinstance(entry.get("fragment"), dict) else {}
    return (str(f.get("spec")), str(f.get("id")))


def _symbol(name, entry: bool = False) -> tuple:
    """The identifiers of the symbol a source or an entry names: the text before its gloss (" (" or
    " ="), an entry's template arguments left out (`CLayout_64xN<104>` is one of CLayout_64xN's).
    A source's may carry a qualifier in front (`SM90::GMMA::`, `MMA_Traits<...>::`), so the test is
    that it ends with the entry's."""
    if not isinstance(name, str):
        return ()
    text = re.split(r" \(| =", name, maxsplit=1)[0].strip()
    if entry:
        text = re.sub(r"<[^<>]*>$", "", text)
    return tuple(re.findall(r"[A-Za-z0-9_]+", text))


def read_from(meaning, fr: dict, fpath: list) -> None:
    """Each name a movement layout was read from is an entry of the data for this layout, named once;
    and every copy atom or tile that encodes it (expected equal) is named."""
    shape, path = meaning.doc.value["shape"], fpath + ["reading", "read_from"]
    mine = {}
    for stem, value in _data().items():
        for e in value["entries"]:
            f = e.get("fragment") if isinstance(e, dict) else None
            if isinstance(f, dict) and (f.get("spec"), f.get("id")) == (shape, fr["id"]):
                expect = e.get("expect", "equal" if e.get("status", "current") == "current" else "differs")
                kind = (e.get("encoding") or {}).get("kind") if isinstance(e.get("encoding"), dict) else None
                # read from: CuTe's copy atoms (shared memory and Tensor Memory) and Triton's tiles; the
                # encodings checked against the reading afterwards (MLIR's ldmatrix formulas) are
                # conformance's, not its sources
                mine[f"{value['library']} {e.get('name')}"] = expect if kind in ("cute-copy", "cute-tmem", "triton") \
                    else "checked"
    named = fr["reading"]["read_from"]
    for k, name in enumerate(named):
        if name not in mine:
            raise SpecError(meaning.span(path + [k]), f"{name!r} is no entry of the reference data for {shape} "
                            f"{fr['id']} (its entries: {', '.join(sorted(mine)) or 'none'})")
        if name in named[:k]:
            raise SpecError(meaning.span(path + [k]), f"{name!r} is named twice")
    missing = sorted(n for n, expect in mine.items() if expect == "equal" and n not in named)
    if missing:
        raise SpecError(meaning.span(path, key=True), f"the reference data encodes {shape} {fr['id']} as "
                        f"{', '.join(missing)} too, which read_from does not name")


def differences(meaning, sec: dict, base: list) -> tuple:
    """A section's `differences`: each names a fragment of the section and a row its table has, and
    prints that row otherwise. verbatim seeks the other version's cell in the whole section, so a
    row number pointing past the table (or at a row printed alike) would pass it unnoticed; one
    pointing at another row is the words theorem's (its cell names that row's types)."""
    tables = {fr["id"]: fr.get("table", []) for key in ("fragments", "figures_only") for fr in sec.get(key, [])}
    out = []
    for d, diff in enumerate(sec.get("differences", ())):
        at = base + ["differences", d]
        if diff["fragment"] not in tables:
            raise SpecError(meaning.span(at + ["fragment"]), f"{diff['fragment']} is no fragment of section "
                            f"{sec['section']} (its fragments: {', '.join(tables) or 'none'})")
        rows = tables[diff["fragment"]]
        if diff["row"] > len(rows):
            raise SpecError(meaning.span(at + ["row"]), f"{diff['fragment']}'s table has {len(rows)} "
                            f"row{'s' if len(rows) != 1 else ''}, not a row {diff['row']}")
        row = rows[diff["row"] - 1]
        if (row.get("fragment"), row.get("elements") or "") == (diff["fragment_cell"], diff["elements_cell"]):
            raise SpecError(meaning.span(at + ["fragment_cell"]), f"{diff['fragment']} row {diff['row']} is printed "
                            f"so in the transcription too: no difference")
        first = next((d for d in out if (d.version, d.fragment, d.row) == (diff["version"], diff["fragment"],
                                                                            diff["row"])), None)
        if first is not None:  # one version prints a row one way: a second is a copy or a contradiction
            raise SpecError(meaning.span(at + ["row"]), f"{diff['fragment']} row {diff['row']} in {diff['version']} "
                            f"is given twice (first at line {first.span.line})")
        out.append(model.Difference(**diff, span=meaning.span(at + ["row"])))
    return tuple(out)
