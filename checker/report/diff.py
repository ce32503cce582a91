"""`checker diff` as text, JSON, or the Markdown a bot posts on a pull request."""
from __future__ import annotations

from checker.diff.entries import summary
from checker.report.markdown import code, inline

_MAX_VERDICTS = 40


def _verdict_line(what, old, new) -> str:
    return f"{what}: {old or '(absent)'} -> {new or '(absent)'}"


def as_json(diffs: list) -> dict:
    return {"specs": [{
        "path": d.path, "status": d.status, "worse": d.worse, "errors": d.errors,
        "fragments_added": d.added, "fragments_removed": d.removed, "changes": d.changes,
        "fragments": [{"fragment": f.fragment, "summary": summary(f), "moved": len(f.moved), "entries": f.total,
                       "changes": f.header,
                       "entries_moved": [{"lane": m[0], "i": m[1], "old": list(m[2]) if m[2] else None,
                                          "new": list(m[3]) if m[3] else None} for m in f.moved]}
                      for f in d.fragments],
        "verdicts": [{"what": w, "old": o, "new": n, "location": d.why.get(w, (None,))[0],
                      "why": d.why.get(w, (None, None))[1]} for w, o, n in d.verdicts],
        "affected_by": d.by} for d in diffs],
        "worse": any(d.worse for d in diffs)}


def _facts(d, name=str) -> list:
    """(is an error, text) for what both renderings list first: load errors, fragments added/removed,
    "same as" targets changed."""
    out = [(True, e) for e in d.errors]
    for what, ids in (("added", d.added), ("removed", d.removed)):
        if ids:
            out.append((False, f"fragments {what}: {', '.join(name(x) for x in ids)}"))
    out.extend((False, change) for change in d.changes)
    return out


def _status(d) -> str:
    if d.status == "affected":
        return f"not edited; verdicts changed by the edit of {', '.join(d.by)}"
    return d.status


def as_text(diffs: list) -> str:
    lines = []
    for d in diffs:
        lines.append(f"{d.path}: {_status(d)}" + (" (a verdict got worse)" if d.worse else ""))
        lines.extend(f"  {text}" for _, text in _facts(d))
        for f in d.fragments:
            lines.append(f"  {summary(f)}")
        for w, o, n in d.verdicts[:_MAX_VERDICTS]:
            lines.append(f"  verdict {_verdict_line(w, o, n)}")
            if w in d.why:
                at, why, replay = d.why[w]
                lines.append(f"    {at}: {why}")
                if replay:
                    lines.append(f"    replay: {replay}")
        if len(d.verdicts) > _MAX_VERDICTS:
            lines.append(f"  ... {len(d.verdicts) - _MAX_VERDICTS} more verdict changes (--format json lists all)")
    if not diffs:
        lines.append("no spec file changed")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    # what the specs and their paths say is text: no raw HTML, no javascript: link (a PR comment)
    return inline(text).replace("|", "\\|").replace("\n", " ")


def as_markdown(diffs: list) -> str:
    worse = any(d.worse for d in diffs)
    lines = ["### ptx-fragment-checker: what this change does to the specs", "",
             ("**A verdict got worse** — see below." if worse else "No verdict got worse."), ""]
    if not diffs:
        lines.append("No spec file changed.")
    for d in diffs:
        lines.append(f"#### {code(d.path)} — {_cell(_status(d))}")
        lines.append("")
        lines.extend(f"- {':x: ' if bad else ''}{_cell(text)}" for bad, text in _facts(d, code))
        if d.fragments:
            lines += ["", "| fragment | what moves |", "| --- | --- |"]
            for f in d.fragments:
                lines.append(f"| {code(f.fragment)} | {_cell(summary(f).split(': ', 1)[1])} |")
        if d.verdicts:
            lines += ["", "| what | before | after |", "| --- | --- | --- |"]
            for w, o, n in d.verdicts[:_MAX_VERDICTS]:
                mark = " :x:" if n not in (None, "PROVED", "ERRATUM-CONFIRMED", "REFUTED-AS-DECLARED") else ""
                lines.append(f"| {_cell(w)} | {o or '—'} | {n or '—'}{mark} |")
            if len(d.verdicts) > _MAX_VERDICTS:
                lines.append(f"\n{len(d.verdicts) - _MAX_VERDICTS} more verdict changes are in `--format json`.")
            broke = [(w, d.why[w]) for w, _, _ in d.verdicts[:_MAX_VERDICTS] if w in d.why]
            if broke:
                lines.append("")
            for w, (at, why, replay) in broke:
                lines.append(f"- :x: **{_cell(w)}** at {code(at)}: {_cell(why)}"
                             + (f" — replay: {code(replay)}" if replay else ""))
        lines.append("")
    return "\n".join(lines) + "\n"
