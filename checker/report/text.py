"""Compiler-convention text: `file:line:col: error: ...`, then what to look at and a replay."""
from __future__ import annotations

from checker.properties import PROPERTIES
from checker.results import PROVED, SPEC_ERROR, summary
from checker.terminal import lines as text_lines


def _cex_lines(cex: dict) -> list:
    out = []
    if cex.get("pieces"):
        for p in cex["pieces"]:
            out.append(f"    {p['point']}: {p['formula']} piece {p['piece']} at {p['at']} gives {p['value']}")
    if cex.get("replay"):
        out.append(f"    replay: {cex['replay']}")
    return out


def failure(r) -> list:
    """A result that failed, as `prove` prints it: located, then what to look at and the replay
    (`mutate` prints the failures of a spec it will not measure the same way)."""
    if r.subject is not None:  # a theorem
        lines = [f"{r.location}: error: {r.property} {r.subject} {r.verdict.lower().replace('_', ' ')}: {r.message}"]
        cex = r.counterexample or {}
        if cex.get("relation_at") and cex["relation_at"] != r.location:
            lines.append(f"{cex['relation_at']}: note: {r.property} {r.subject} is declared here")
        return lines + _cex_lines(cex)
    head = "" if not r.fragment else f"{r.fragment}: " if r.verdict == SPEC_ERROR else \
        f"{r.fragment} {r.property} {r.verdict.lower()}: "
    if r.verdict == SPEC_ERROR and not r.fragment and not str(r.location).startswith(f"{r.spec}:"):
        # another file's error stopped this one (relations.yaml reading a spec that does not load):
        # name it, or its line repeats the spec's own word for word
        head = f"{r.spec} not checked: "
    return [f"{r.location}: error: {head}{r.message}", *(_cex_lines(r.counterexample) if r.counterexample else [])]


def failures(results: list) -> str:
    """Every failed result's lines: what a command that proves but prints something else (errata)
    says on stderr, so a failure is never only an exit code."""
    return text_lines(line for r in results if r.failed() for line in failure(r))


def prove_report(results: list, seconds: float, files: int, relation_files: int = 0, cached: bool = False,
                 scope: str = "") -> str:
    """`scope`: the line that says what the scope rule added to the files given (checker/scope.py)."""
    lines = []
    by_fragment: dict = {}
    theorems: dict = {}
    for r in results:
        if r.subject is not None:
            theorems.setdefault(r.spec, []).append(r)
        else:
            by_fragment.setdefault((r.spec, r.fragment), []).append(r)
    for (spec, fragment), rs in by_fragment.items():
        ok = [r for r in rs if r.verdict == PROVED]
        props = sorted({r.property for r in ok}, key=PROPERTIES.index)
        if ok:
            comps = sorted({r.computation for r in ok if r.computation})
            extra = f" (per MMA computation {', '.join(map(str, comps))})" if comps else ""
            lines.append(f"{spec}: {fragment}: proved {', '.join(props)}{extra}")
        for r in rs:
            if r.verdict == PROVED:
                continue
            if r.erratum:
                lines.append(f"{r.location}: note: erratum confirmed: {fragment} {r.property}: {r.message}")
                if r.counterexample:
                    lines.extend(_cex_lines(r.counterexample))
            else:
                lines.extend(failure(r))
    for spec, rs in theorems.items():
        lines.append(f"{spec}: theorems:")
        for r in rs:
            if r.verdict == PROVED:
                lines.append(f"  proved {r.property}: {r.subject}: {r.message}")
            elif r.declared:
                lines.append(f"  refuted as declared {r.property}: {r.subject}: {r.message}")
            elif r.erratum:  # an erratum of a title's or a sentence's words (checker.theorems.wording)
                lines.append(f"{r.location}: note: erratum confirmed: {r.subject} {r.property}: {r.message}")
            else:
                lines.extend(failure(r))
    if scope:
        lines.append(scope)
    frag = [r for r in results if r.subject is None]
    theo = [r for r in results if r.subject is not None]
    s, t = summary(frag), summary(theo)
    specs = files - relation_files
    lines.append(
        f"{specs} spec{'s' if specs != 1 else ''}, {len({(r.spec, r.fragment) for r in frag if r.fragment})} fragments: "
        f"{s['proved']} proved, {s['refuted']} refuted, {s['unknown']} unknown, {s['spec_errors']} spec errors; "
        f"{s['errata_confirmed'] + t['errata_confirmed']} errata confirmed; "
        + (f"{relation_files} relations file{'s' if relation_files != 1 else ''}; " if relation_files else "")
        + f"theorems: {t['proved']} proved, {t['declared_refutations']} refuted as declared, "
        f"{t['refuted'] + t['unknown'] + t['spec_errors']} failed ({seconds:.2f} s"
        + (", the results of an identical earlier run, from the cache; --no-cache proves again)" if cached else ")"))
    return text_lines(lines)
