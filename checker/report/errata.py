"""Every confirmed erratum of the specs, as a report a documentation owner can check in a minute:
where it is (section, figure, fragment), what is printed, the reading, what the printed text
breaks with its smallest counterexample and a replay command, the versions of the document that
print it, and whether it is a contradiction or a judgment. It renders results it is given."""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field

from checker.results import PROVED
from checker.terminal import lines as text_lines

ENCODINGS_NOTE = ("for each erratum of a formula, the published layouts of the same fragment (CuTe, Triton, MLIR: "
                  "checker/references/data/, `checker conformance`) that agree with the reading and those that agree "
                  "with the printed text, each agreement proved by z3 and the enumeration")


@dataclass
class Entry:
    spec: str  # the spec file
    shape: str
    section: str
    figures: list
    subject: str  # "A.b1", "title", "same as"
    field: str
    kind: str  # contradiction | judgment
    printed: str
    reading: str
    why: str
    at: str  # file:line:col of the erratum in the spec
    versions: list  # the document versions whose text prints it
    breaks: list = field(default_factory=list)  # [{property, message, counterexample}]
    encodings: dict | None = None  # a formula erratum's reference entries: {reading, printed, neither, note}
    # the fragment whose section of the spec's page shows it: a parametric fragment's first
    # instance (D.float[N=8]), where `subject` names the table all instances share (D.float)
    page_id: str | None = None

    @property
    def where(self) -> str:
        figs = f", {', '.join(self.figures)}" if self.figures else ""
        return f"§{self.section}{figs}"


def collect(specs: list, results: list, encodings: dict | None = None) -> list:
    """specs: (path, spec) pairs; results: what proving them gave. One Entry per erratum, in file
    and document order; an erratum whose confirmation is missing from `results` is left out (the
    prove results say why). encodings: {erratum location: checker.references.errata.Agreement}."""
    confirmed: dict = {}
    for r in results:
        if r.erratum and r.verdict != PROVED:
            at = ((r.detail or {}).get("erratum") or {}).get("at") or (r.counterexample or {}).get("erratum_at") \
                or r.location
            confirmed.setdefault(at, []).append(r)
    out = []
    for path, spec in specs:
        for sec in spec.sections:
            versions = list(getattr(sec, "versions", ()) or ())
            # a section's errata correct its title or one of its stated sentences
            owners = [("title" if e.field == "title" else f"stated sentence {e.row + 1}", None, e) for e in sec.errata]
            owners += [("same as", None, e) for same in sec.same_as for e in same.errata]
            for f in sec.fragments + sec.figures_only:
                owners += [(f.table_id, f, e) for e in f.errata]
            seen = set()
            for subject, f, e in owners:
                mine = confirmed.get(str(e.span), [])
                if not mine or str(e.span) in seen:
                    continue  # a parametric fragment's instances (wgmma D at every N) share one table's errata
                seen.add(str(e.span))
                out.append(Entry(path, spec.shape, sec.section, list(f.figures) if f is not None else [], subject,
                                 e.field, e.kind, e.printed, e.value.text, " ".join(e.erratum.split()), str(e.span),
                                 versions, [_broken(r) for r in mine], _encodings(encodings, e),
                                 f.id if f is not None else None))
    return out


def _encodings(encodings, e):
    found = (encodings or {}).get(str(e.span))
    return None if found is None else found.to_json()


def _encoding_lines(e: Entry) -> list:
    enc = e.encodings
    if enc is None:
        return []

    def names(xs):
        return ", ".join(xs) if xs else "none"
    out = [f"agree with the reading: {names(enc['reading'])}; with the printed text: {names(enc['printed'])}"]
    if enc["neither"]:
        out.append(f"with neither: {names(enc['neither'])}")
    if enc["note"]:
        out.append(enc["note"])
    return out


def _broken(r) -> dict:
    cex = r.counterexample or {}
    return {"property": r.property, "message": r.message,
            "counterexample": {k: cex[k] for k in ("lanes", "elements", "cell", "replay", "pieces") if k in cex} or None}


def render_json(entries: list) -> str:
    return json.dumps({"errata": [_public(e) for e in entries],
                       "encodings": ENCODINGS_NOTE,
                       "counts": _counts(entries)}, indent=1) + "\n"


def _public(e: Entry) -> dict:
    out = asdict(e) | {"where": e.where}
    del out["page_id"]  # the page's anchor, not a fact of the erratum
    return out


def _counts(entries) -> dict:
    return {"errata": len(entries), "contradictions": sum(e.kind == "contradiction" for e in entries),
            "judgments": sum(e.kind == "judgment" for e in entries)}


def _code(text: str) -> str:
    """A Markdown code span that holds backticks too: its fence is longer than any run of them in
    the text, so that none closes it early and lets the rest be read as Markdown (or raw HTML)."""
    if "`" not in text:
        return f"`{text}`"
    fence = "`" * (max(len(run) for run in re.findall(r"`+", text)) + 1)
    return f"{fence} {text} {fence}"


def _tally(entries) -> str:
    c = _counts(entries)

    def n(k, one, many):
        return f"{k} {one if k == 1 else many}"
    return (f"{n(c['errata'], 'erratum', 'errata')}: {n(c['contradictions'], 'contradiction', 'contradictions')}, "
            f"{n(c['judgments'], 'judgment', 'judgments')}")


def _printed(e: Entry) -> str:
    return "an empty cell" if e.printed == "" else _code(e.printed)


def render_text(entries: list) -> str:
    lines = []
    for e in entries:
        lines.append(f"{e.at}: {e.kind}: {e.shape} {e.where} {e.subject} ({e.field}): printed {_printed(e)}, "
                     f"read as {_code(e.reading)}")
        for b in e.breaks:
            lines.append(f"    breaks {b['property']}: {b['message']}")
            replay = (b["counterexample"] or {}).get("replay")
            if replay:
                lines.append(f"    replay: {replay}")
        if e.versions:
            lines.append(f"    printed in PTX ISA {', '.join(e.versions)}")
        for line in _encoding_lines(e):
            lines.append(f"    independent encodings: {line}")
    lines.append(_tally(entries))
    return text_lines(lines)


def _md(value) -> str:
    """Text from a spec in errata.md, read as the report's pages read it: what would open raw HTML
    is written as text, and a link whose target is not safe (javascript:) is no link."""
    from checker.report.markdown import inline

    return inline(str(value))


def render_markdown(entries: list) -> str:
    out = ["# Errata of the PTX ISA's matrix fragment sections", "",
           "Each item below is printed in the PTX ISA (warp-level matrix instructions, 9.7.14) and was found",
           "by proving a faithful transcription of it (`checker prove specs/`). Each gives where it is, the",
           "text as printed, the reading the checker uses instead, and what the printed text breaks, with",
           "the smallest counterexample: the lanes, elements and cells, which anyone can check by hand",
           "against the formula. **Contradictions** are texts that cannot be right as printed (a formula",
           "that puts two elements in one cell, an element list naming an element twice); **judgments**",
           "are texts that are odd or say less than their tables, where the reading is a choice.", "",
           f"{_tally(entries)}. "
           f"Regenerate with `checker report specs/`; `checker errata specs/` prints the same list.", "",
           f"Independent encodings: {ENCODINGS_NOTE}.", ""]
    for kind, title in (("contradiction", "Contradictions"), ("judgment", "Judgments")):
        mine = [e for e in entries if e.kind == kind]
        if not mine:
            continue
        out += [f"## {title}", ""]
        for n, e in enumerate(mine, 1):
            out += [f"### {n}. {_md(e.shape)} {_md(e.where)}: {_md(e.subject)}, {_md(e.field)}", "",
                    f"- **Printed**: {_printed(e)}",
                    f"- **Reading**: {_code(e.reading)}",
                    f"- **Why**: {_md(e.why)}"]
            if e.versions:
                out.append(f"- **Printed in**: PTX ISA {', '.join(e.versions)}")
            out.append(f"- **In the spec**: `{e.at}`")
            for b in e.breaks:
                out.append(f"- **Breaks {_md(b['property'])}**: {_md(b['message'])}")
                cex = b["counterexample"] or {}
                for p in cex.get("pieces", []):
                    out.append(f"  - {_md(p['point'])}: {_md(p['formula'])} piece {p['piece']} gives {_md(p['value'])}")
                if cex.get("replay"):
                    out.append(f"  - replay: `{cex['replay']}`")
            enc = _encoding_lines(e)
            if enc:
                out.append(f"- **Independent encodings**: {_md('; '.join(enc))}")
            out.append("")
    return "\n".join(out)
