"""The located lines and per-subject groups that the movement and wgmma crosschecks render from
their results (one dump per subject, each checked by several properties)."""
from __future__ import annotations

from checker.errors import SourceSpan, SpecError
from checker.results import PROVED, REFUTED, SPEC_ERROR, Result


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


def readable(paths: list, read, results: list):
    """(path, dump) for each dump file that `read` reads, in order; one that does not becomes a
    malformed (SPEC_ERROR) result in `results`, located where the reader says."""
    for p in paths:
        try:
            d = read(p)
        except SpecError as exc:
            results.append(Result(p, None, "dump", SPEC_ERROR, location=str(exc.span), message=exc.message))
            continue
        yield p, d


def verdict_lines(groups: dict, width: int, agreed) -> tuple:
    """One line per dump subject, `agrees` (how: `agreed(results)`) or `DISAGREES` with the
    properties that failed; and how many agree."""
    lines, agree = [], 0
    for (subject, source), rs in sorted(groups.items()):
        ok = all(r.verdict == PROVED for r in rs)
        agree += ok
        lines.append(f"{'agrees' if ok else 'DISAGREES':9s} {subject:{width}s} {source or '-':9s} "
                     + (agreed(rs) if ok else "fails " + ", ".join(r.property for r in rs if r.verdict != PROVED)))
    return lines, agree


def synthetic_only(stats: dict, kind: str) -> list:
    """The warning that every dump checked is the reference model's, where none is the hardware's."""
    if stats["synthetic"] and not stats["hardware"]:
        return [f"every {kind} dump checked is SYNTHETIC (computed by the reference model): this tests the "
                "crosscheck, not the hardware"]
    return []


def refuse_malformed(results: list, dump_dir: str) -> None:
    """A malformed dump fails the report as it fails `checker crosscheck` (exit 3, located): left
    out of the count, it let the report say "none recorded yet" over a broken hardware dump."""
    bad = [r for r in results if r.verdict == SPEC_ERROR]
    if bad:
        file, line, col = (bad[0].location or f"{dump_dir}:1:1").rsplit(":", 2)
        raise SpecError(SourceSpan(file, int(line), int(col)), bad[0].message,
                        f"{len(bad)} malformed in {dump_dir}; checker crosscheck SPEC... --dumps {dump_dir} lists them")
