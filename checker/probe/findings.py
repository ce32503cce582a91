"""The located lines and per-subject groups that the movement and wgmma crosschecks render from
their results (one dump per subject, each checked by several properties)."""
from __future__ import annotations

from checker.results import PROVED, REFUTED


def error_lines(results: list) -> list:
    """`file:line:col: error: property subject: message` for each result that did not pass."""
    lines = []
    for r in results:
        if r.verdict != PROVED:
            kind = "error" if r.verdict == REFUTED else "error (malformed)"
            lines.append(f"{r.location}: {kind}: {r.property + ' ' + r.subject if r.subject else r.property}: {r.message}")
    return lines


def by_subject(results: list) -> dict:
    """(subject, source) -> its results, for the results about a dump's subject."""
    groups: dict = {}
    for r in results:
        if r.subject:
            groups.setdefault((r.subject, r.detail.get("source")), []).append(r)
    return groups
