"""`checker report`: write the report folder, or (`--check`) say which of its files are stale.

The files the report owns: index.html, the Markdown pages, errata.md, timings.json and everything
under figures/. Everything else in the folder (hardware/, synthetic/, ...) is left alone. Timings are
the one part of a report that differs from run to run, so they live in timings.json: a check
renders with the committed timings and compares every other byte."""
from __future__ import annotations

import json
import os
import time

from checker.report import errata, html, isa, markdown
from checker.report.gather import gather, key
from checker.report.pages import TITLE, build

TIMINGS = "timings.json"
ERRATA = "errata.md"  # for a documentation owner: every confirmed erratum, with its evidence
FIGURES = "figures"


def render(files: list, jobs: int, dumps: str | None, timings: dict | None):
    """-> (outputs {relative path: text}, report). timings None: measure them now."""
    hardware, agreeing = isa.hardware_agreement(files, dumps)
    t0 = time.perf_counter()
    report = gather(files, jobs, hardware, agreeing)
    if timings is None:
        timings = {key(r): round(r.seconds, 6) for r in report.results}
        timings["total"] = round(time.perf_counter() - t0, 4)
    pages, figs = build(report, timings, isa.rows(report.specs, hardware))
    outputs = {f"{p.name}.md": markdown.render(p) for p in pages}
    outputs["index.html"] = html.render(pages, TITLE)
    outputs.update({f"{FIGURES}/{name}": svg for name, svg in figs.items()})
    outputs[TIMINGS] = json.dumps(dict(sorted(timings.items())), indent=0) + "\n"
    outputs[ERRATA] = errata.render_markdown(errata.collect([(v.path, v.spec) for v in report.specs if v.spec],
                                                            report.results))
    return outputs, report


def committed_timings(out: str) -> dict | None:
    raw = _read(os.path.join(out, TIMINGS))
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        return {k: float(v) for k, v in data.items()} if isinstance(data, dict) else None
    except (ValueError, TypeError, AttributeError, RecursionError):
        return None


def _owned_on_disk(out: str) -> set:
    found = set()
    fig = os.path.join(out, FIGURES)
    if os.path.isdir(fig):
        found |= {f"{FIGURES}/{n}" for n in os.listdir(fig)}
    return found


def write(out: str, outputs: dict) -> list:
    """Write what changed; remove figures no page uses any more. -> the paths written."""
    os.makedirs(os.path.join(out, FIGURES), exist_ok=True)
    written = []
    for rel, text in sorted(outputs.items()):
        path = os.path.join(out, rel)
        if _read(path) != text:
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
            written.append(rel)
    for rel in sorted(_owned_on_disk(out) - set(outputs)):
        os.remove(os.path.join(out, rel))
        written.append(rel)
    return written


def stale(out: str, outputs: dict) -> list:
    """-> (path, why) for every owned file that is missing, differs or is left over."""
    problems = []
    for rel, text in sorted(outputs.items()):
        got = _read(os.path.join(out, rel))
        if got is None:
            problems.append((rel, "missing"))
        elif got != text:
            problems.append((rel, _first_difference(got, text)))
    problems += [(rel, "no page uses it any more") for rel in sorted(_owned_on_disk(out) - set(outputs))]
    return problems


def _first_difference(got: str, want: str) -> str:
    a, b = got.splitlines(), want.splitlines()
    for n, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            return f"differs from line {n}: committed {_clip(x)!r}, now {_clip(y)!r}"
    return f"differs in length: committed {len(a)} lines, now {len(b)}"


def _clip(s: str) -> str:
    return s if len(s) <= 100 else s[:97] + "..."


MAX_PAGE = 64 << 20  # the committed report's files are read back for --check: bounded, regular files only


def _read(path: str) -> str | None:
    from checker.bounded import read_regular
    from checker.errors import SpecError

    try:
        return read_regular(path, MAX_PAGE).decode("utf-8")
    except (SpecError, UnicodeDecodeError):
        return None
