"""`checker verbatim`: every field a spec says it copied from the document, sought in a local copy
of the document (checker/verbatim/)."""
from __future__ import annotations

import json
import os
import re

from checker.commands.common import add_format, add_output, add_specs, command, spec_files
from checker.errors import SpecError, UsageError

NAME = "verbatim"


def add(sub) -> None:
    va = command(sub, NAME, "find every verbatim field of the specs in a copy of the document",
                 "Find every field the specs transcribe verbatim (titles, table headers, Fragment, Elements and "
                 "Miscellaneous cells, formula blocks, captions with their figure numbers, stated sentences, errata's "
                 "printed text; docs/specs.md lists them) in a local copy of the PTX ISA, in the section each "
                 "names, in a version its section claims. Only Markdown's markup and whitespace are normalised "
                 "(docs/specs.md says which). A field not found is an error at its first differing character, "
                 "with the document's nearest text, where it is, and a character diff. Exit 0: every field "
                 "found; 1: one not found; 2: usage; 3: a malformed spec or an unreadable document folder.",
                 ["checker verbatim specs/ --document document/",
                  "checker verbatim specs/m16n8k256.yaml --document document/ptx-isa --format json",
                  "checker verbatim specs/ --document 9.1=document/ptx-isa --document 9.2=document/ptx-isa-9.2"])
    add_specs(va, help="spec files, or folders of them (specs/); relations.yaml, which holds none of the "
                       "document's text, is passed over")
    va.add_argument("--document", action="append", required=True, metavar="DIR",
                    help="a folder of the document's Markdown/text files; VERSION=DIR says which version "
                         "it is (else each file's header comment, or the first line of a README.md above it)")
    add_format(va)
    add_output(va)


def _folders(values: list) -> list:
    out = []
    for value in values:
        m = re.fullmatch(r"(\d+(?:\.\d+)+)=(.+)", value, re.S)
        version, folder = (m.group(1), m.group(2)) if m else (None, value)
        if not os.path.isdir(folder):
            raise UsageError(f"--document: no such folder: {folder}")
        out.append((version, folder))
    # a file reached through two folders is read once, as the first names it: a version given wins
    return sorted(out, key=lambda vf: vf[0] is None)


def run(args, out, err) -> int:
    from checker.files import is_relations_file
    from checker.spec import yamlload
    from checker.spec.checked import load_checked
    from checker.verbatim import complete, document, fields, match, seeds

    folders = _folders(args.document)
    files = [f for f in spec_files(args.paths) if not is_relations_file(f)]  # relations: the spec's own words
    lists, everything = complete.lists(args.paths, files)
    doc = document.read(folders)
    if doc.errors:  # what is not read would be reported missing: nothing is checked against a part
        for e in doc.errors:
            err.write(f"{e}\n")
        if args.format == "json":
            _json(out, [], doc, files, [{"location": str(e.span), "message": e.message} for e in doc.errors], None)
        return 3
    outcomes, problems, wrong, claimed, sections, entries = [], [], [], [], [], []
    for path in files:
        try:
            written = yamlload.load(path)  # read and parsed once: for the gate and the three below
            load_checked(path, written=written)
            found = [match.check(f, doc) for f in fields.read(path, written)]
            seeded = seeds.check(path, doc, written)  # a provenance no field's verdict depends on
            mine, theirs = complete.claims(path, written)
        except SpecError as exc:
            err.write(f"{exc}\n")
            problems.append({"location": str(exc.span), "message": exc.message})
            continue
        claimed += mine
        sections += theirs
        outcomes += [(path, o) for o in found]
        wrong += [{"location": str(at), "message": why} for at, why in seeded]
        if args.format == "text":
            _text_spec(out, path, found)
            out.writelines(f"{at}: error: {why}\n" for at, why in seeded)
    for path in lists:
        try:
            entries += complete.listed(path)
        except SpecError as exc:
            err.write(f"{exc}\n")
            problems.append({"location": str(exc.span), "message": exc.message})
    unchecked = "a spec or an untranscribed list did not load" if problems else None
    for path in complete.siblings(files):  # what the specs beside them claim, read only for that
        try:
            mine, theirs = complete.claims(path)
        except SpecError:
            unchecked = unchecked or f"{path}, beside the specs given, does not load"
            continue
        claimed += mine
        sections += theirs
    figures, unseeded = None, len(wrong)
    if unchecked is None:  # a spec that did not load claims nothing: its figures would all be reported
        missing, figures = complete.check(doc, claimed, sections, entries, lists, everything, frozenset(files))
        wrong += [{"location": str(at), "message": why} for at, why in missing]
        if args.format == "text":
            out.writelines(f"{at}: error: {why}\n" for at, why in missing)
    if args.format == "json":
        _json(out, outcomes, doc, files, problems + wrong, figures)
    else:
        seeded = f"; {unseeded} seed{'s' * (unseeded != 1)} not holding their section" if unseeded else ""
        out.write(_figures(figures, lists, unchecked) + "\n")
        out.write(_summary(outcomes, doc, len(files)) + seeded + "\n")
    return 3 if problems else 1 if wrong or any(o.failed for _, o in outcomes) else 0


def _figures(counts: dict | None, lists: list, unchecked: str | None) -> str:
    if counts is None:
        return f"figures: not checked ({unchecked})"
    scope = ("every section of the document" if counts["scope"] == "document"
             else "the sections the specs given transcribe")
    listed = f", {counts['listed']} listed in {', '.join(lists)}" if lists else ""
    return (f"figures of {scope}, in the versions known: {counts['printed']} printed, {counts['transcribed']} "
            f"transcribed{listed}, {counts['neither']} neither")


def show(text: str, limit: int = 120) -> str:
    """A text of the spec or the document as a message quotes it: cells' edges and gaps as
    ` | ` and ` ¶ `, control characters escaped (the document is untrusted), cut to `limit`."""
    from checker.bounded import shown
    from checker.verbatim.normalise import GAP, SEP

    return shown(text.replace(SEP, " | ").replace(GAP, " ¶ "), limit)


def _where(w) -> str:
    return f"{w.span} ({w.version or 'version unknown'})"


def _text_spec(out, path: str, found: list) -> None:
    from checker.verbatim import match

    ok = [o for o in found if o.status in (match.FOUND, match.OUTSIDE)]
    skipped = sum(o.status == match.SKIPPED for o in found)
    more = f", {skipped} not checkable here" if skipped else ""
    out.write(f"{path}: {len(ok)} of {len(found)} verbatim fields found ({_versions(ok)}){more}\n")
    for o in found:
        where = f" at {', '.join(_where(w) for w in o.found[:3])}" if o.found else ""
        if o.failed:
            near = ""
            if o.nearest is not None:
                near = f"; nearest: {show(o.nearest[0])} at {_where(o.nearest[1])}"
            out.write(f"{o.at}: error: {o.field.label}: {o.why}{where}{near}\n")
            if o.diff:
                out.write(f"    diff (spec -> document): {show(o.diff, 300)}\n")
        elif o.status in (match.OUTSIDE, match.SKIPPED):
            out.write(f"{o.at}: note: {o.field.label}: {o.why}{where}\n")


def _versions(ok: list) -> str:
    """How many of the fields found were found in which versions: `9.1 and 9.2: 40, 9.1 only: 2`."""
    counts: dict = {}
    for o in ok:
        key = o.versions()
        counts[key] = counts.get(key, 0) + 1

    def name(key):
        if not key:
            return "in no version known"
        return " and ".join(key) if len(key) > 1 else f"{key[0]} only"
    return ", ".join(f"{name(k)}: {n}" for k, n in sorted(counts.items(), key=lambda kv: (-len(kv[0]), kv[0]))) or "none"


def _summary(outcomes: list, doc, specs: int) -> str:
    from checker.verbatim import match

    ok = [o for _, o in outcomes if not o.failed]
    outside = sum(o.status == match.OUTSIDE for o in ok)
    skipped = sum(o.status == match.SKIPPED for o in ok)
    extra = (f"; {outside} of them outside the section named" if outside else "") + \
        (f"; {skipped} not checkable here" if skipped else "")
    versions = ", ".join(f"{v or 'version unknown'}: {n}" for v, n in
                         sorted(doc.versions().items(), key=lambda kv: kv[0] or "~"))
    return (f"{specs} spec{'s' * (specs != 1)}: {len(outcomes)} verbatim fields checked, {len(ok) - skipped} found "
            f"({_versions([o for o in ok if o.status != match.SKIPPED])}){extra}, {len(outcomes) - len(ok)} not found; "
            f"document: {len(doc.files)} files ({versions})")


def _json(out, outcomes: list, doc, files: list, problems: list, figures: dict | None) -> None:
    from checker.verbatim import match

    rows = []
    for path, o in outcomes:
        near = None
        if o.nearest is not None:
            near = {"text": o.nearest[0], "location": str(o.nearest[1].span), "version": o.nearest[1].version}
        rows.append({"spec": path, "field": o.field.label, "kind": o.field.kind, "location": str(o.at),
                     "section": o.field.section, "text": o.field.text, "status": o.status, "why": o.why or None,
                     "found": [{"location": str(w.span), "version": w.version} for w in o.found],
                     "versions": list(o.versions()), "nearest": near, "diff": o.diff})
    count = {s: sum(o.status == s for _, o in outcomes) for s in
             (match.FOUND, match.OUTSIDE, match.SKIPPED, match.MISSING, match.VERSION)}
    summary = {"specs": len(files), "fields": len(outcomes), **count,
               "not_found": count[match.MISSING] + count[match.VERSION], "document_files": len(doc.files),
               "document_versions": {v or "unknown": n for v, n in doc.versions().items()}}
    json.dump({"summary": summary, "figures": figures, "errors": problems, "fields": rows}, out, indent=1)
    out.write("\n")
