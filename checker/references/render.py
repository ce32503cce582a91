"""The conformance matrix (checker.references.conformance) as text, Markdown or JSON: spec fragment x
library, each cell the entries' verdicts, then every entry with its pin and evidence."""
from __future__ import annotations

import json

from checker.spec.refdata import LIBRARIES

SYMBOL = {"equal": "equal", "differs": "differs", "malformed": "malformed", "not modelled": "not modelled"}


def _key(v) -> tuple:
    r = v.reference
    return (r.spec, r.fragment_id)


def counts(verdicts: list) -> dict:
    out = {k: sum(v.verdict == k for v in verdicts) for k in SYMBOL}
    out["entries"] = len(verdicts)
    out["not as expected"] = sum(not v.as_expected for v in verdicts)
    return out


def _tally(verdicts: list) -> str:
    c = counts(verdicts)
    return (f"{c['entries']} reference {'entry' if c['entries'] == 1 else 'entries'}: {c['equal']} equal (proved), {c['differs']} differ, "
            f"{c['malformed']} malformed, {c['not modelled']} not modelled; {c['not as expected']} not as the "
            "entry expects")


def _evidence(v) -> str:
    if v.verdict == "equal":
        return f"equal: z3 proved it at all {v.comparison.points} points, the enumeration agrees"
    if v.verdict == "differs":
        c = v.comparison
        return f"differs at {c.differing} of {c.points} points; the first: {v.reason}"
    return f"{v.verdict}: {v.reason}"


def render_text(verdicts: list) -> str:
    lines = []
    for v in verdicts:
        r = v.reference
        mark = "" if v.as_expected else f"  [expected {r.expect}]"
        lines.append(f"{r.span}: {r.library} {r.name} ({r.status}) vs {r.spec} {r.fragment_id}: {_evidence(v)}{mark}")
    lines.append(_tally(verdicts))
    return "\n".join(lines) + "\n"


def render_json(verdicts: list) -> str:
    out = []
    for v in verdicts:
        r = v.reference
        out.append({"library": r.library, "name": r.name, "repo": r.repo, "commit": r.commit, "path": r.path,
                    "line": r.line, "anchor": r.anchor, "status": r.status, "note": r.note, "expect": r.expect,
                    "spec": r.spec, "fragment": r.fragment_id, "encoding": r.encoding.kind, "at": str(r.span),
                    "verdict": v.verdict, "as_expected": v.as_expected, "reason": v.reason,
                    "comparison": v.comparison.to_json() if v.comparison is not None else None})
    return json.dumps({"entries": out, "counts": counts(verdicts)}, indent=1) + "\n"


def _cell(vs: list) -> str:
    if not vs:
        return ""
    parts = []
    for verdict in SYMBOL:
        names = [v.reference.name + (" (historical)" if v.reference.status == "historical" else "")
                 for v in vs if v.verdict == verdict]
        if names:
            parts.append(f"**{verdict}**: " + ", ".join(f"`{n}`" for n in names))
    return "; ".join(parts)


def render_markdown(verdicts: list) -> str:
    out = ["# Conformance: published layouts against the specs", "",
           "Each published layout below (CuTe's MMA traits, Triton's linear layouts, MLIR NVGPU's fragment",
           "formulas, ...) is transcribed as data in `checker/references/data/`, pinned to the upstream file",
           "and commit it was read at, and compared with its spec fragment by z3 and by the plain-Python",
           "enumeration, which agree: **equal** is proved at every (thread, element); **differs** comes with",
           "the smallest counterexample; **malformed** is upstream text that is not a layout; **not",
           "modelled** is a fragment with no spec yet. Historical entries are layouts as they were before a",
           "fix, kept so the check is seen catching real bugs. Regenerate with `checker report specs/`;",
           "`checker conformance specs/` prints the same.", "", f"{_tally(verdicts)}.", "",
           "## The matrix", ""]
    libs = [lib for lib in LIBRARIES if any(v.reference.library == lib for v in verdicts)]
    rows: dict = {}
    for v in verdicts:
        rows.setdefault(_key(v), []).append(v)
    out += ["| spec | fragment | " + " | ".join(libs) + " |", "| --- | --- | " + " | ".join("---" for _ in libs) + " |"]
    for (spec, fid), vs in sorted(rows.items()):
        cells = [_cell([v for v in vs if v.reference.library == lib]) for lib in libs]
        out.append(f"| {spec} | {fid} | " + " | ".join(cells) + " |")
    out += ["", "## Every entry", ""]
    for v in verdicts:
        r = v.reference
        where = f"line {r.line}" if r.line else f"`{r.anchor}`"
        out.append(f"- **{r.library} `{r.name}`** ({r.status}) vs {r.spec} `{r.fragment_id}`: {_evidence(v)}"
                   + ("" if v.as_expected else f" **(the entry expects {r.expect})**"))
        out.append(f"  - read at {r.repo}@`{r.commit[:12]}` `{r.path}`, {where}; data `{r.span}`")
        if r.note:
            out.append(f"  - {r.note}")
    return "\n".join(out) + "\n"
