"""Every figure the document prints is transcribed by a spec, or listed with its reason.

The field check (match.py) goes from the spec to the document: what a spec transcribes must be
printed. It cannot see what a spec leaves out: a fragment deleted, or a version dropped from a
section's `versions`, leaves no field behind to miss, and every check of what remains still
passes. This is the other direction. A figure the document prints in a section of a known
version must be claimed there by a spec (the `figures` of a fragment, a layout or a figures-only
entry, in a section whose `versions` name that version), or listed in the catalogue's
`untranscribed.yaml` with the reason no spec transcribes it.

Which figures are looked at: those of every section some given spec transcribes; and, where a
folder given holds an `untranscribed.yaml` (the catalogue, `specs/`), those of every section of
the document. A listed figure that a spec transcribes, or that the document does not print there,
is an error too, so the list cannot go stale. Files of no known version (the plain-text seeds) are
passed over: the versioned chapters print the same sections.

What else a section gives that its spec must hold (its same-as sentences, its fragment tables'
rows, its instruction forms) is checked by checker/verbatim/omitted.py, for the same sections.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from checker.errors import SourceSpan, SpecError
from checker.files import UNTRANSCRIBED_FILE, is_untranscribed_file
from checker.spec import yamlload
from checker.verbatim import omitted

_FIGURE = re.compile(r"Figure (\d+)\Z")
_SECTION = re.compile(r"\d+(?:\.\d+)+\Z")
_VERSION = re.compile(r"\d+\.\d+\Z")
_KEYS = ("versions", "figures", "reason")
MAX_ENTRIES = 500
MAX_SIBLINGS = 1000  # spec files read beside one given (the catalogue: 24)


@dataclass(frozen=True)
class Figure:
    """A figure of a section in a version, and where it is named: its caption in the document, the
    `Figure N` item of a spec that transcribes it, or the item of the list that says why none does."""

    section: str
    version: str
    figure: int
    span: SourceSpan


@dataclass(frozen=True)
class Section:
    """A section of a spec: what it claims, whatever its figures."""

    number: str
    versions: tuple
    span: SourceSpan  # its `section:`
    versions_span: SourceSpan  # its `versions:` (the section where it has none)
    said: frozenset = frozenset()  # the subjects of its same_as entries' sentences (omitted.held)
    forms: frozenset = frozenset()  # the instructions its layouts name (ldmatrix, stmatrix, movmatrix)
    rows: frozenset = frozenset()  # its tables' Fragment cells, as the document is read


@dataclass(frozen=True)
class Group:
    """An entry of the list as written: its versions, the figures of each section, one reason."""

    versions: tuple
    figures: tuple  # (section, (figure numbers...)), in the list's order
    reason: str


def groups(path: str) -> list:
    """The entries of an untranscribed list, as the report shows them."""
    _, entries = _entries(path)
    return [Group(tuple(e["versions"]), tuple((sec, tuple(int(_FIGURE.match(f).group(1)) for f in figs))
                                              for sec, figs in e["figures"].items()), " ".join(e["reason"].split()))
            for e in entries]


def printed(doc) -> list:
    """Every figure caption of the document's files of a known version, with its section: the
    captions the document reader found (checker/verbatim/document.py says which lines are one; the
    seeds, text files of no version, are not asked)."""
    out = []
    for f in doc.files:
        if f.version is None:
            continue
        for number, _, origins in f.captions:
            section = f.section_at(origins[0])
            if section:
                out.append(Figure(section, f.version, int(number), SourceSpan(f.path, f.span(origins[0]).line, 1)))
    return out


def claims(path: str, loaded: yamlload.Document | None = None) -> tuple:
    """([Figure], [Section]): every figure a spec file transcribes, in each version its section
    names, and its sections (as the file is written: the spec has been through the gate;
    `loaded`: the file as yamlload read it, where the caller has it)."""
    spec = loaded or yamlload.load(path)
    value = spec.value if isinstance(spec.value, dict) else {}
    out, sections = [], []
    for s, sec in enumerate(value.get("sections") or []):
        if not isinstance(sec, dict):
            continue
        number, versions = str(sec.get("section")), tuple(map(str, sec.get("versions") or ()))
        sections.append(Section(number, versions, spec.span(("sections", s, "section")),
                                spec.span(("sections", s, "versions")), *omitted.held(sec)))
        for key in ("fragments", "layouts", "figures_only", "scale_factors"):
            for f, frag in enumerate(sec.get(key) or []):
                for k, fig in enumerate((frag.get("figures") or []) if isinstance(frag, dict) else []):
                    m = _FIGURE.fullmatch(str(fig))
                    if m:
                        where = spec.span(("sections", s, key, f, "figures", k))
                        out.extend(Figure(number, v, int(m.group(1)), where) for v in versions)
    return out, sections


def _entries(path: str) -> tuple:
    """(the loaded list, its entries), each entry checked; a malformed list is a located SpecError."""
    doc = yamlload.load(path)
    value = doc.value
    entries = value.get("untranscribed") if isinstance(value, dict) else None
    if not isinstance(value, dict) or set(value) != {"untranscribed"} or not isinstance(entries, list):
        raise SpecError(doc.span(()), f"{UNTRANSCRIBED_FILE} holds one key, `untranscribed`: a list of "
                        "{versions, figures, reason}")
    if len(entries) > MAX_ENTRIES:
        raise SpecError(doc.span(("untranscribed",)), f"more than {MAX_ENTRIES} entries")
    for e, entry in enumerate(entries):
        at = ("untranscribed", e)
        if not isinstance(entry, dict) or set(entry) != set(_KEYS):
            have = ", ".join(map(str, entry)) if isinstance(entry, dict) else type(entry).__name__
            raise SpecError(doc.span(at), f"an entry has the keys {', '.join(_KEYS)}; found: {have or 'none'}")
        versions, figures, reason = (entry[k] for k in _KEYS)
        if not isinstance(versions, list) or not versions:
            raise SpecError(doc.span(at + ("versions",)), "versions: a list of at least one version, such as 9.1")
        for k, version in enumerate(versions):
            if not isinstance(version, str) or not _VERSION.match(version):
                raise SpecError(doc.span(at + ("versions", k)), f"versions: each is a version such as 9.1; found {version!r}")
        if not isinstance(figures, dict) or not figures:
            raise SpecError(doc.span(at + ("figures",)), "figures: each section's number, with the list of its "
                            "figures (\"9.7.14.3\": [Figure 42, Figure 43])")
        for section, items in figures.items():
            if not isinstance(section, str) or not _SECTION.match(section):
                raise SpecError(doc.span(at + ("figures", section), key=True),
                                f"figures: {section!r} is no section number, such as 9.7.14.3")
            if not isinstance(items, list) or not items:
                raise SpecError(doc.span(at + ("figures", section)), f"figures of {section}: a list of at least one (Figure N)")
            for k, fig in enumerate(items):
                if not isinstance(fig, str) or not _FIGURE.match(fig):
                    raise SpecError(doc.span(at + ("figures", section, k)), f"figures of {section}: each is Figure N; found {fig!r}")
        if not isinstance(reason, str) or len(reason.split()) < 4:
            raise SpecError(doc.span(at + ("reason",)), "reason: why no spec transcribes these figures, in words")
    seen: dict = {}
    for item in _figures(doc, entries):
        key = (item.section, item.version, item.figure)
        if key in seen:
            raise SpecError(item.span, f"Figure {item.figure} of section {item.section} in PTX ISA {item.version} "
                            f"is listed twice (first at {seen[key]})")
        seen[key] = item.span
    return doc, entries


def _figures(doc, entries: list) -> list:
    """Each figure of checked entries, once for each version it is listed for, at its item."""
    return [Figure(section, version, int(_FIGURE.match(fig).group(1)),
                   doc.span(("untranscribed", e, "figures", section, k)))
            for e, entry in enumerate(entries) for section, items in entry["figures"].items()
            for k, fig in enumerate(items) for version in entry["versions"]]


def listed(path: str) -> list:
    """The figures an untranscribed list names, one for each version it is listed for."""
    return _figures(*_entries(path))


def lists(paths: list, files: list) -> tuple:
    """(the untranscribed lists that apply, whether the whole document is in scope). A folder given
    that holds a list (the catalogue) puts every section in scope; a list named, or beside a spec
    file given, is read for the sections of the specs given."""
    from checker.files import under

    out, everything = [], False
    for path in paths:
        if os.path.isdir(path):
            found = [p for p in under([path], (".yaml", ".yml")) if is_untranscribed_file(p)]
            everything = everything or bool(found)
            out.extend(found)
        elif is_untranscribed_file(path):
            out.append(path)
    for f in files:
        beside = os.path.join(os.path.dirname(f), UNTRANSCRIBED_FILE)
        if os.path.isfile(beside):
            out.append(beside)
    return sorted(set(out), key=out.index), everything


def siblings(files: list) -> list:
    """The spec files beside the files given and not among them (at most MAX_SIBLINGS): what they
    claim is claimed too. ldmatrix's section is transcribed by three specs, and checking one of
    them must not report the figures the other two transcribe."""
    from checker.files import is_relations_file

    given = {os.path.abspath(f) for f in files}
    out = []
    for folder in dict.fromkeys(os.path.dirname(f) for f in files):
        try:
            names = sorted(os.listdir(folder or "."))[:MAX_SIBLINGS]
        except OSError:
            continue  # its own spec was read from it: a folder that cannot be listed has no siblings to read
        for name in names:
            path = os.path.join(folder, name)
            if (name.endswith((".yaml", ".yml")) and not is_untranscribed_file(path) and not is_relations_file(path)
                    and os.path.abspath(path) not in given and os.path.isfile(path)):
                given.add(os.path.abspath(path))
                out.append(path)
    return out


def check(doc, claimed: list, sections: list, entries: list, lists: list, everything: bool,
          given: frozenset = frozenset()) -> tuple:
    """([(span, message)], counts): every figure printed in scope that is neither claimed nor
    listed, and every listed figure that is claimed or not printed. In scope: every section of the
    document where `everything`, else the sections of the spec files in `given` (the claims and
    sections may come from specs beside them too)."""
    numbers = {sec.number for sec in sections if everything or sec.span.file in given}
    by_key = {(c.section, c.version, c.figure): c for c in claimed}
    listed_at = {(e.section, e.version, e.figure): e for e in entries}
    out, in_scope, printed_keys = [], set(), {}
    for p in printed(doc):
        key = (p.section, p.version, p.figure)
        printed_keys.setdefault(key, p)
        if not (everything or p.section in numbers):
            continue
        in_scope.add(key)
        if key in by_key or key in listed_at:
            continue
        at, why = _why(p, sections)
        where = f" (printed at {p.span})" if at is not p.span else ""
        out.append((at, f"Figure {p.figure} of section {p.section} in PTX ISA {p.version}{where} is transcribed by "
                        f"no spec: {why}; transcribe it, or list it with its reason in "
                        f"{lists[0] if lists else 'an ' + UNTRANSCRIBED_FILE + ' beside the specs'}"))
    versions = {f.version for f in doc.files if f.version is not None}
    for key, e in listed_at.items():
        if key in by_key:
            out.append((e.span, f"Figure {e.figure} of section {e.section} in PTX ISA {e.version} is listed as "
                                f"untranscribed, but {by_key[key].span} transcribes it: take it off the list"))
        elif e.version in versions and key not in printed_keys:
            there = sorted(p.figure for k, p in printed_keys.items() if k[:2] == (e.section, e.version))
            shown = ", ".join(map(str, there)) if there else "none"
            out.append((e.span, f"the document prints no Figure {e.figure} in section {e.section} of PTX ISA "
                                f"{e.version} (the figures it prints there: {shown})"))
    out += omitted.check(doc, sections, numbers)
    transcribed = in_scope & set(by_key)
    listed_keys = (in_scope & set(listed_at)) - transcribed
    counts = {"scope": "document" if everything else "sections transcribed", "printed": len(in_scope),
              "transcribed": len(transcribed), "listed": len(listed_keys),
              "neither": len(in_scope - transcribed - listed_keys)}
    return sorted(out, key=lambda o: (o[0].file, o[0].line, o[0].col, o[1])), counts


def _why(p: Figure, sections: list) -> tuple:
    """Where a figure nobody transcribes is reported, and what the specs say of its section: at
    the section's `versions` where they leave its version out, at the section where none of its
    entries names it (a fragment deleted), at the document where no spec has the section."""
    mine = [sec for sec in sections if sec.number == p.section]
    if any(p.version in sec.versions for sec in mine):
        return next(sec.span for sec in mine if p.version in sec.versions), \
            "no fragment, layout or figures-only entry of its section names it"
    if mine:
        named = sorted({v for sec in mine for v in sec.versions})
        return mine[0].versions_span, (f"its section's `versions` name PTX ISA {', '.join(named)} only" if named
                                       else "its section's `versions` name no version")
    return p.span, f"no spec transcribes section {p.section}"
