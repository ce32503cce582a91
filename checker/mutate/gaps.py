"""Known gaps: survivors accepted for now, each with the theorem that would close it. A survivor
not listed fails the campaign, and so does a listed gap that no longer survives (the list must
say what is true today)."""
from __future__ import annotations

import os

from checker.errors import SourceSpan, SpecError
from checker.spec import yamlload

FIELDS = {"spec", "fragment", "before", "after", "closes_it"}


def load(path: str) -> list:
    doc = yamlload.load(path)
    gaps = doc.value.get("gaps") if isinstance(doc.value, dict) else None
    if not isinstance(gaps, list):
        raise SpecError(SourceSpan(path, 1, 1), "a known-gaps file holds `gaps:`, a list")
    for k, g in enumerate(gaps):
        if not isinstance(g, dict) or set(g) != FIELDS or not all(isinstance(v, str) for v in g.values()):
            raise SpecError(doc.span(("gaps", k)), f"each gap has exactly the string fields {', '.join(sorted(FIELDS))}")
    return gaps


def key(spec: str, fragment: str, before: str, after: str) -> tuple:
    return os.path.basename(spec), fragment, before, after


def match(campaigns: list, gaps: list) -> tuple:
    """-> (survivors not listed, listed gaps that did not survive), and marks known survivors."""
    listed = {key(g["spec"], g["fragment"], g["before"], g["after"]): g for g in gaps}
    seen, unlisted = set(), []
    for c in campaigns:
        for o in c.outcomes:
            if o.verdict != "survivor":
                continue
            k = key(o.spec, o.fragment, o.before, o.after)
            if k in listed:
                seen.add(k)
                o.by = "known gap: " + listed[k]["closes_it"]
            else:
                unlisted.append(o)
    checked = {os.path.basename(c.spec) for c in campaigns}
    closed = [g for k, g in listed.items() if k not in seen and k[0] in checked]
    return unlisted, closed
