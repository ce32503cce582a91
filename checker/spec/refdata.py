"""The form of the reference data files (checker/references/data/*.yaml) and of the upstream
excerpts (checker/references/excerpts.yaml), read field by field with located errors. The spec
loader holds a reading's sources and a container's read_from to what these files say, so it reads
them through this module; each entry's encoding (the layout itself) is checker.references.load's
to parse, which the spec loader never needs. The format is documented in docs/references.md:

    library: CuTe | Triton | MLIR | JAX
    repo: owner/name
    commit: <40 hex>            the commit the entries were read at
    path: the upstream file
    entries: [ENTRY, ...]

    ENTRY: name, line (or anchor: the function it is read from, where no line numbers were
    available), fragment: {spec, id, params?}, status: current | historical, note (historical:
    required), commit (historical: the commit it was read at), expect (equal | differs | malformed;
    default: equal when current, differs when historical), encoding: {kind: cute | triton |
    formula | table | cute-copy | cute-tmem | mosaic-tiled,
    ...}
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from checker.errors import SpecError
from checker.spec import yamlload

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "references", "data")
LIBRARIES = ("CuTe", "Triton", "MLIR", "JAX")
STATUSES = ("current", "historical")
VERDICTS = ("equal", "differs", "malformed", "refuted")  # refuted: another name for differs
KINDS = ("cute", "triton", "formula", "table", "cute-copy", "cute-tmem", "mosaic-tiled")
THREADS = ("default", "sm70-quadpair")
MAX_ENTRIES = 512


@dataclass(frozen=True)
class Encoding:
    kind: str
    fields: dict  # kind-specific, validated: see checker.references.load
    span: object


@dataclass(frozen=True)
class Reference:
    """One published layout of one spec fragment."""

    library: str
    repo: str
    commit: str
    path: str  # in the upstream repository
    name: str  # upstream's own name
    line: int | None
    anchor: str | None
    spec: str  # the spec's shape (file stem)
    fragment: str  # the fragment id, without parameters
    params: tuple  # ((name, value), ...)
    status: str
    note: str
    expect: str
    encoding: Encoding
    file: str  # the data file
    span: object  # where the entry is in it

    @property
    def fragment_id(self) -> str:
        """The spec's id of the instance: D.f32[N=64] for a parametric shape."""
        return self.fragment + "".join(f"[{k}={v}]" for k, v in self.params)

    @property
    def pin(self) -> str:
        at = f"#L{self.line}" if self.line else f" ({self.anchor})"
        return f"{self.repo}@{self.commit[:12]}:{self.path}{at}"


class Doc:
    """Field access with located errors over a loaded YAML document."""

    def __init__(self, doc):
        self.doc = doc

    def err(self, path, message, key=False):
        raise SpecError(self.doc.span(tuple(path), key), message)

    def mapping(self, value, path, required, optional=()):
        if not isinstance(value, dict):
            self.err(path, f"expected a mapping with {', '.join(required)}, found {described(value)}")
        for k in value:
            if k not in required and k not in optional:
                self.err(list(path) + [k], f"unknown field {k!r}; expected {', '.join((*required, *optional))}", True)
        for k in required:
            if k not in value:
                self.err(path, f"missing field {k!r}")
        return value

    def string(self, value, path, pattern=None, what="a string"):
        if not isinstance(value, str) or not value.strip() or (pattern and not re.fullmatch(pattern, value)):
            blank = isinstance(value, str) and not value.strip()  # not "expected a string, found the string ''"
            self.err(path, f"expected {what}, found {'an empty string' if blank else described(value)}")
        return value

    def choice(self, value, path, choices):
        if value not in choices:
            self.err(path, f"expected one of {', '.join(choices)}, found {described(value)}")
        return value

    def integer(self, value, path, lo=0, hi=1 << 24):
        if type(value) is not int or not lo <= value <= hi:
            self.err(path, f"expected an integer in {lo}..{hi}, found {described(value)}")
        return value

    def pairs(self, value, path, most=32):
        if not isinstance(value, list) or len(value) > most:
            self.err(path, f"expected a list of at most {most} [row, col] pairs, found {described(value)}")
        for k, b in enumerate(value):
            if not isinstance(b, list) or len(b) != 2:
                self.err(list(path) + [k], f"expected [row, col], found {described(b)}")
            for j, x in enumerate(b):
                self.integer(x, list(path) + [k, j], 0, (1 << 16) - 1)
        return tuple((b[0], b[1]) for b in value)


def described(value) -> str:
    from checker.bounded import shown

    if isinstance(value, bool):
        return f"the boolean {value}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {shown(value)}"
    if value is None:
        return "nothing"
    if isinstance(value, list):  # its length: "expected [rows, cols], found a list" said nothing of what was wrong
        return f"a list of {len(value)} item{'' if len(value) == 1 else 's'}" if value else "an empty list"
    return "a mapping"


def shown_as(path: str) -> str:
    """A shipped data file is named by its place in the repository, wherever the command runs (the
    committed report names it so); any other file as it was given."""
    full = os.path.abspath(path)
    if os.path.dirname(full) == DATA:
        return "checker/references/data/" + os.path.basename(full)
    return path


# A data file's bytes, kept while the file stays as it was: a proof reads each once however many
# readers ask (the loader's pins, the provenance theorems' encodings), and a long-lived process
# (`import checker`) reads a file again once it was edited. Keyed by what stat says, never by the
# name alone; bounded, least recently used first out (conformance may be given any number of files
# of one's own): clearing all at the bound had dropped a proof's own files mid-proof, read twice.
_BYTES: dict = {}
MAX_HELD = 64


def identity(path: str) -> tuple | None:
    """What tells a file's edit without reading it: device, inode, size, modification and change
    times (an editor's rename is another inode; a write in place moves mtime and ctime, and ctime
    cannot be set back). None where the file cannot be stat'ed (the reader says why, located)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def held(store: dict, path: str, make):
    """make(path), kept in `store` while the file stays as it was (identity), at most MAX_HELD
    files, the least recently used first out; made again where the file is new or changed."""
    before = identity(path)  # taken before making: an edit meanwhile is a change seen next time
    kept = store.pop(path, None)
    if before is None or kept is None or kept[0] != before:
        kept = (before, make(path))
    if before is not None:
        while len(store) >= MAX_HELD:
            del store[next(iter(store))]  # each use moves a file last
        store[path] = kept
    return kept[1]


def held_bytes(path: str) -> bytes:
    """The file's bytes: read (bounded, recorded for the result cache) where it is new or changed
    since it was last read, else the bytes read then."""
    from checker.recording import read_regular

    return held(_BYTES, path, lambda p: read_regular(p, yamlload.MAX_BYTES))


def read(path: str, encoding=None) -> tuple:
    """(the YAML document, its references). `encoding(doc, value, path, expect)` parses an entry's
    encoding; without it each is checked for its kind alone (the spec loader reads the entries'
    pins and names, not their layouts)."""
    doc = yamlload.load(shown_as(path), held_bytes(path))
    d = Doc(doc)
    top = d.mapping(doc.value, [], ("library", "repo", "commit", "path", "entries"), ("note",))
    library = d.choice(top["library"], ["library"], LIBRARIES)
    repo = d.string(top["repo"], ["repo"], r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", "owner/name")
    commit = d.string(top["commit"], ["commit"], r"[0-9a-f]{40}", "a 40-hex commit")
    upstream = d.string(top["path"], ["path"])
    entries = top["entries"]
    if not isinstance(entries, list) or not entries or len(entries) > MAX_ENTRIES:
        d.err(["entries"], f"expected a list of 1..{MAX_ENTRIES} entries, found {described(entries)}")
    out, names = [], {}
    for k, e in enumerate(entries):
        out.append(_entry(d, e, ["entries", k], library, repo, commit, upstream, doc.path, encoding))
        key = (out[-1].name, out[-1].commit)
        if key in names:
            d.err(["entries", k, "name"], f"entry {out[-1].name!r} at this commit is given twice (first at "
                                          f"line {names[key].line})")
        names[key] = out[-1].span
    return doc, out


def _entry(d: Doc, e, path, library, repo, commit, upstream, file, encoding) -> Reference:
    e = d.mapping(e, path, ("name", "fragment", "status", "encoding"),
                  ("line", "anchor", "note", "commit", "expect", "path"))
    name = d.string(e["name"], path + ["name"])
    if ("line" in e) == ("anchor" in e):
        d.err(path, "give exactly one of line (the line in the upstream file) or anchor (the function it is read "
                    "from)")
    line = d.integer(e["line"], path + ["line"], 1) if "line" in e else None
    anchor = d.string(e["anchor"], path + ["anchor"]) if "anchor" in e else None
    status = d.choice(e["status"], path + ["status"], STATUSES)
    note = d.string(e["note"], path + ["note"]) if "note" in e else ""
    if status == "historical" and (not note or "commit" not in e):
        d.err(path, "a historical entry needs a note (what was fixed, where) and the commit it was read at")
    entry_commit = d.string(e["commit"], path + ["commit"], r"[0-9a-f]{40}", "a 40-hex commit") if "commit" in e \
        else commit
    expect = d.choice(e.get("expect", "equal" if status == "current" else "differs"), path + ["expect"], VERDICTS)
    expect = "differs" if expect == "refuted" else expect
    frag = d.mapping(e["fragment"], path + ["fragment"], ("spec", "id"), ("params",))
    spec = d.string(frag["spec"], path + ["fragment", "spec"], r"[A-Za-z0-9_.]+", "a spec's shape (m16n8k16)")
    fid = d.string(frag["id"], path + ["fragment", "id"], r"[A-Za-z0-9_.]+", "a fragment id (A.f16)")
    params = ()
    if "params" in frag:
        ps = frag["params"]
        if not isinstance(ps, dict) or not ps:
            d.err(path + ["fragment", "params"], f"expected a mapping of parameters ({{N: 64}}), found {described(ps)}")
        # a shape's parameter (N: 8..256), or a block-scaling selector (thread-id-a: 0..3)
        params = tuple((d.string(k, path + ["fragment", "params"], r"[A-Z]|thread-id-[ab]", "a parameter name"),
                        d.integer(v, path + ["fragment", "params", k], 0 if k.startswith("thread-id") else 1, 1024))
                       for k, v in ps.items())
    enc = encoding(d, e["encoding"], path + ["encoding"], expect) if encoding else \
        Encoding(kind_of(d, e["encoding"], path + ["encoding"]), {}, d.doc.span(tuple(path + ["encoding"])))
    upstream_path = d.string(e["path"], path + ["path"]) if "path" in e else upstream
    return Reference(library, repo, entry_commit, upstream_path, name, line, anchor, spec, fid, params, status, note,
                     expect, enc, file, d.doc.span(tuple(path)))


def kind_of(d: Doc, enc, path) -> str:
    if not isinstance(enc, dict) or "kind" not in enc:
        d.err(path, f"expected a mapping with kind: {' | '.join(KINDS)}")
    return d.choice(enc["kind"], path + ["kind"], KINDS)


def read_excerpts(path: str) -> list:
    """checker/references/excerpts.yaml: the upstream lines container readings quote, each {repo,
    commit, path, first: its first line's number, pins: the [first, last] ranges cited, text: the
    lines}, every pin inside the lines copied."""
    from checker.recording import read_regular

    shipped = os.path.abspath(path) == os.path.join(os.path.dirname(DATA), "excerpts.yaml")
    doc = yamlload.load("checker/references/excerpts.yaml" if shipped else path, read_regular(path, yamlload.MAX_BYTES))
    d = Doc(doc)
    held = d.mapping(doc.value, [], ("excerpts",))["excerpts"]
    if not isinstance(held, list) or not held or len(held) > MAX_ENTRIES:
        d.err(["excerpts"], f"expected a list of 1..{MAX_ENTRIES} excerpts, found {described(held)}")
    for k, x in enumerate(held):
        at = ["excerpts", k]
        d.mapping(x, at, ("repo", "commit", "path", "first", "pins", "text"))
        d.string(x["repo"], at + ["repo"], r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", "owner/name")
        d.string(x["commit"], at + ["commit"], r"[0-9a-f]{40}", "a 40-hex commit")
        d.string(x["path"], at + ["path"])
        last = d.integer(x["first"], at + ["first"], 1) + len(d.string(x["text"], at + ["text"]).splitlines()) - 1
        if not isinstance(x["pins"], list) or not 1 <= len(x["pins"]) <= 64:
            d.err(at + ["pins"], f"expected a list of 1..64 [first, last] line ranges, found {described(x['pins'])}")
        for j, pin in enumerate(x["pins"]):
            if not isinstance(pin, list) or len(pin) != 2:
                d.err(at + ["pins", j], f"expected [first, last], found {described(pin)}")
            lo, hi = (d.integer(n, at + ["pins", j, i], 1) for i, n in enumerate(pin))
            if not x["first"] <= lo <= hi <= last:
                d.err(at + ["pins", j], f"expected lines within the {x['first']}-{last} copied, first to last, found "
                                        f"{lo}-{hi}")
    return held
