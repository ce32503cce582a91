"""The report folder on disk: what the report owns in it, written, or (`--check`) compared.

The files the report owns: the HTML pages (index.html and one per spec), the Markdown pages,
errata.md, timings.json, files.txt and everything under figures/. files.txt lists what the run
that wrote the folder wrote, so that a page of a spec that is gone (its Markdown too, not only its
HTML) is named left over and removed, and nothing else in the folder (hardware/, synthetic/, a
README of one's own) ever is. Timings are the one part of a report that differs from run to run,
so they live in timings.json: a check renders with the committed timings and compares every
other byte."""
from __future__ import annotations

import json
import os

TIMINGS = "timings.json"
ERRATA = "errata.md"  # for a documentation owner: every confirmed erratum, with its evidence
CONFORMANCE = "conformance.md"  # published layouts (CuTe, Triton, MLIR) against the specs
FIGURES = "figures"
MANIFEST = "files.txt"
_MANIFEST_MAX = 1 << 20  # bytes: the list of a few hundred file names


def committed_timings(out: str) -> dict | None:
    raw = _read(os.path.join(out, TIMINGS))
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        return {k: float(v) for k, v in data.items()} if isinstance(data, dict) else None
    except (ValueError, TypeError, AttributeError, RecursionError):
        return None


def with_manifest(outputs: dict) -> dict:
    """The report's files and the list of them (files.txt)."""
    return {**outputs, MANIFEST: "".join(f"{rel}\n" for rel in sorted({*outputs, MANIFEST}))}


def _owned_on_disk(out: str) -> set:
    """The files of the folder that only the report writes: figures, HTML pages, and what the
    folder's files.txt lists (a page of a spec that is gone is removed with it). The list is read
    bounded, and only names the report could have written count: a plain name of the folder
    (.md, .html, .json) or one under figures/."""
    found = {n for n in os.listdir(out) if n.endswith(".html")} if os.path.isdir(out) else set()
    fig = os.path.join(out, FIGURES)
    if os.path.isdir(fig):
        found |= {f"{FIGURES}/{n}" for n in os.listdir(fig)}
    listed = _read(os.path.join(out, MANIFEST), _MANIFEST_MAX) or ""
    for rel in listed.splitlines():
        parts = rel.split("/")
        plain = all(p and p not in (".", "..") and not p.startswith(".") for p in parts)
        if plain and (len(parts) == 1 and rel.endswith((".md", ".html", ".json", ".txt"))
                      or len(parts) == 2 and parts[0] == FIGURES) and os.path.isfile(os.path.join(out, rel)):
            found.add(rel)
    return found


def write(out: str, outputs: dict) -> list:
    """Write what changed; remove figures no page uses any more. -> the paths written."""
    owned = _owned_on_disk(out)  # before files.txt is written anew: what the last run wrote
    os.makedirs(os.path.join(out, FIGURES), exist_ok=True)
    written = []
    for rel, text in sorted(outputs.items()):
        path = os.path.join(out, rel)
        if _read(path) != text:
            from checker.outputs import write_text  # (`outputs` is the argument)

            write_text(path, text, "--out")  # refuses a FIFO or a device left in the folder
            written.append(rel)
    for rel in sorted(owned - set(outputs)):  # left over: the last run wrote it, this one does not
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


def _read(path: str, limit: int | None = None) -> str | None:
    from checker.bounded import read_regular
    from checker.errors import SpecError

    try:
        return read_regular(path, limit or MAX_PAGE).decode("utf-8")
    except (SpecError, UnicodeDecodeError):
        return None
