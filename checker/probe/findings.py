"""The located lines and per-subject groups that the movement and wgmma crosschecks render from
their results (one dump per subject, each checked by several properties)."""
from __future__ import annotations

from checker.errors import SourceSpan, SpecError
from checker.results import PROVED, REFUTED, SPEC_ERROR, Result


def error_lines(results: list) -> list:
    """`file:line:col: error: property subject: message` for each result that did not pass; a
    result located in the spec names the dump it is about, since two dumps of one variant (two
    GPUs, two drivers) are checked apart and a disagreement must say which one showed it."""
    lines = []
    for r in results:
        if r.verdict != PROVED:
            kind = "error" if r.verdict == REFUTED else "error (malformed)"
            dump = r.detail.get("dump")
            named = f" (dump {dump})" if dump and not r.location.startswith(f"{dump}:") else ""
            lines.append(f"{r.location}: {kind}: {r.property + ' ' + r.subject if r.subject else r.property}: "
                         f"{r.message}{named}")
    return lines


def by_subject(results: list) -> dict:
    """(subject, source, dump) -> its results, for the results about a dump's subject: each dump
    its own verdict, where two dumps of one variant had been merged into one."""
    groups: dict = {}
    for r in results:
        if r.subject:
            groups.setdefault((r.subject, r.detail.get("source"), r.detail.get("dump")), []).append(r)
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
    """One line per dump, `agrees` (how: `agreed(results)`) or `DISAGREES` with the properties that
    failed, the dump's file named where its subject has more than one; and how many agree."""
    lines, agree = [], 0
    dumps_of: dict = {}
    for subject, source, dump in groups:
        dumps_of.setdefault((subject, source), set()).add(dump)
    for (subject, source, dump), rs in sorted(groups.items(), key=lambda x: tuple(str(k) for k in x[0])):
        ok = all(r.verdict == PROVED for r in rs)
        agree += ok
        lines.append(f"{'agrees' if ok else 'DISAGREES':9s} {subject:{width}s} {source or '-':9s} "
                     + (agreed(rs) if ok else "fails " + ", ".join(r.property for r in rs if r.verdict != PROVED))
                     + (f" ({dump})" if len(dumps_of[(subject, source)]) > 1 and dump else ""))
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
