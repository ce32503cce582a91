"""SARIF 2.1.0 for code scanning: every refuted, unknown or malformed result is an `error` at its
YAML line, so a pull request's diff is annotated where the spec breaks; confirmed errata and
refutations a spec declares are `note`s. Proved results are not listed (SARIF lists findings)."""
from __future__ import annotations

import os

from checker.properties import REGISTRY
from checker.results import PROVED, SPEC_ERROR, UNKNOWN
from checker.theorems.registry import meanings

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = "https://github.com/ptx-fragment-checker/ptx-fragment-checker"
RULES = {
    "load": "The spec file loads: YAML, structure (JSON Schema) and meaning",
    "syntax": "The printed formula parses (an erratum predicts where it does not)",
    **{p.name: p.meaning for p in REGISTRY},
    **meanings(),  # the theorem families (checker/theorems/registry.py)
    "relation": "A cell equation between two fragments (specs/relations.yaml)",
    "predicts": "The spec predicts a probe dump bit for bit",
    "identifies-A": "Every A slot is where the spec puts it (probe identification)",
    "identifies-B": "Every B slot is where the spec puts it (probe identification)",
    "identifies-D": "Every D slot is where the spec puts it (probe identification)",
    "dump": "A probe dump file is well formed",
    "types-named": "A title, caption, Fragment cell or sentence names the types its tables give",
    "register-words": "A Fragment cell's registers are the table's kind and count, and the elements a register holds fit it and the table",
    "wording": "No doubled word, no space before a comma",
    "elements-listed": "Every row of a dense fragment's table lists its elements",
    "erratum": "A declared erratum fails exactly as it says",
}


def _region(location: str | None):
    """'file:line:col' -> (uri, line, col); a bare path -> (uri, 1, 1)."""
    if not location:
        return None
    parts = location.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        path, line, col = parts[0], int(parts[1]), int(parts[2])
    else:
        path, line, col = location, 1, 1
    if os.path.isabs(path):
        path = os.path.relpath(path)
    return path.replace(os.sep, "/"), max(line, 1), max(col, 1)


def _message(r) -> str:
    head = f"{r.fragment} " if r.fragment else ""
    subject = f"{r.subject}: " if r.subject else ""
    verdict = {SPEC_ERROR: "spec error", UNKNOWN: "unknown (z3 gave no answer: never a pass)"}.get(r.verdict, r.verdict.lower())
    text = f"{head}{r.property} {verdict}: {subject}{r.message}".strip()
    cex = r.counterexample or {}
    if cex.get("replay"):
        text += f"\nreplay: {cex['replay']}"
    return text


def render(results: list, version: str) -> dict:
    findings = []
    rule_ids = []
    for r in results:
        if r.verdict == PROVED:
            continue
        rule = r.property if r.property in RULES else "relation" if r.property.startswith("relation") else r.property
        if rule not in rule_ids:
            rule_ids.append(rule)
        level = "note" if (r.erratum or r.declared) else "error"
        item = {"ruleId": rule, "ruleIndex": rule_ids.index(rule), "level": level,
                "message": {"text": _message(r)}}
        where = _region(r.location or r.spec)
        if where:
            uri, line, col = where
            item["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": uri},
                                                       "region": {"startLine": line, "startColumn": col}}}]
        rel = _region((r.counterexample or {}).get("relation_at"))
        if rel and "locations" in item:  # a relation located at a formula: its own line too
            item["relatedLocations"] = [{"id": 0, "message": {"text": f"{r.property} {r.subject} is declared here"},
                                         "physicalLocation": {"artifactLocation": {"uri": rel[0]},
                                                              "region": {"startLine": rel[1], "startColumn": rel[2]}}}]
        props = {"verdict": r.verdict, "spec": r.spec}
        if r.counterexample:
            props["counterexample"] = r.counterexample
        if r.erratum:
            props["erratum"] = True
        item["properties"] = props
        findings.append(item)
    rules = [{"id": rid, "shortDescription": {"text": RULES.get(rid, rid)}} for rid in rule_ids]
    return {"$schema": SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "ptx-fragment-checker", "version": version,
                                          "informationUri": INFO_URI, "rules": rules}},
                      "results": findings,
                      "properties": {"checked": len(results)}}]}
