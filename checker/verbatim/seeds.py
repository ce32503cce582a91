"""A section's `seed:`, the file of the document it was transcribed from, must hold it.

Every field of a section is sought in the section wherever the document prints it, so a seed that
names another file (a neighbouring section's, the plain-text seed of another) changes no verbatim
verdict; yet it says the section was copied from a file that does not print it. Where the document
given holds the file the seed names, that file must hold a numbered heading of the section, or be
a text with no numbered heading at all (the plain-text seeds, which the seed makes the section's
whole). A seed naming no file of the document given is passed over: a partial copy of the document
may leave that file out, as it may leave out the section itself.
"""
from __future__ import annotations

from checker.spec import yamlload


def _sections(value: dict):
    """(path, section) of every section and every containers.document entry with a seed."""
    for s, sec in enumerate(value.get("sections") or []):
        if isinstance(sec, dict) and sec.get("seed"):
            yield ("sections", s), sec
    for d, entry in enumerate((value.get("containers") or {}).get("document") or []):
        if isinstance(entry, dict) and entry.get("seed"):
            yield ("containers", "document", d), entry


def check(path: str, doc, loaded: yamlload.Document | None = None) -> list:
    """(span, message) of each seed whose file, in the document `doc`, does not hold its section
    (`loaded`: the spec file as yamlload read it, where the caller has it)."""
    spec = loaded or yamlload.load(path)
    value = spec.value if isinstance(spec.value, dict) else {}
    out = []
    for where, sec in _sections(value):
        seed, number = str(sec["seed"]).replace("\\", "/"), str(sec.get("section"))
        named = [f for f in doc.files if seed == f.rel.replace("\\", "/") or seed.endswith("/" + f.rel.replace("\\", "/"))]
        if not named or any(f.regions(number) or not f.headings for f in named):
            continue
        holds = sorted({num for f in named for num, _, _ in f.headings if num.count(".") <= number.count(".")})
        out.append((spec.span(where + ("seed",)), f"seed {seed} does not hold section {number} "
                    f"(it holds {', '.join(holds[:4]) or 'no numbered section'}{' ...' if len(holds) > 4 else ''})"))
    return out
