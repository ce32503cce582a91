"""Reference data (checker/references/data/*.yaml): published layouts, transcribed with the upstream
file and commit they were read at, loaded and validated field by field. Every error is located
(file:line:col, what was expected, what was found) and raised as a SpecError (exit 3).

The format is documented in docs/references.md. A file:

    library: CuTe | Triton | MLIR | JAX
    repo: owner/name
    commit: <40 hex>            the commit the entries were read at
    path: the upstream file
    entries: [ENTRY, ...]

    ENTRY: name, line (or anchor: the function it is read from, where no line numbers were
    available), fragment: {spec, id, params?}, status: current | historical, note (historical:
    required), commit (historical: the commit it was read at), expect (equal | differs | malformed;
    default: equal when current, differs when historical), encoding: {kind: cute | triton |
    formula | table | cute-copy, ...}
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from checker.errors import SpecError
from checker.spec import yamlload
from checker.source import from_node

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
LIBRARIES = ("CuTe", "Triton", "MLIR", "JAX")
STATUSES = ("current", "historical")
VERDICTS = ("equal", "differs", "malformed", "refuted")  # refuted: another name for differs
KINDS = ("cute", "triton", "formula", "table", "cute-copy", "mosaic-tiled")
THREADS = ("default", "sm70-quadpair")
MAX_ENTRIES = 512
MAX_TABLE = 1 << 16


@dataclass(frozen=True)
class Encoding:
    kind: str
    fields: dict  # kind-specific, validated: see _encoding
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


class _Doc:
    """Field access with located errors over a loaded YAML document."""

    def __init__(self, doc):
        self.doc = doc

    def err(self, path, message, key=False):
        raise SpecError(self.doc.span(tuple(path), key), message)

    def mapping(self, value, path, required, optional=()):
        if not isinstance(value, dict):
            self.err(path, f"expected a mapping with {', '.join(required)}, found {_kind(value)}")
        for k in value:
            if k not in required and k not in optional:
                self.err(list(path) + [k], f"unknown field {k!r}; expected {', '.join((*required, *optional))}", True)
        for k in required:
            if k not in value:
                self.err(path, f"missing field {k!r}")
        return value

    def string(self, value, path, pattern=None, what="a string"):
        if not isinstance(value, str) or not value.strip() or (pattern and not re.fullmatch(pattern, value)):
            self.err(path, f"expected {what}, found {_kind(value)}")
        return value

    def choice(self, value, path, choices):
        if value not in choices:
            self.err(path, f"expected one of {', '.join(choices)}, found {_kind(value)}")
        return value

    def integer(self, value, path, lo=0, hi=1 << 24):
        if type(value) is not int or not lo <= value <= hi:
            self.err(path, f"expected an integer in {lo}..{hi}, found {_kind(value)}")
        return value

    def pairs(self, value, path, most=32):
        if not isinstance(value, list) or len(value) > most:
            self.err(path, f"expected a list of at most {most} [row, col] pairs, found {_kind(value)}")
        for k, b in enumerate(value):
            if not isinstance(b, list) or len(b) != 2:
                self.err(list(path) + [k], f"expected [row, col], found {_kind(b)}")
            for j, x in enumerate(b):
                self.integer(x, list(path) + [k, j], 0, (1 << 16) - 1)
        return tuple((b[0], b[1]) for b in value)


def _kind(value) -> str:
    from checker.bounded import shown

    if isinstance(value, bool):
        return f"the boolean {value}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {shown(value)}"
    if value is None:
        return "nothing"
    return "a list" if isinstance(value, list) else "a mapping"


def files(paths=None) -> list:
    """The data files: those given (files or folders), or every *.yaml of the shipped folder."""
    from checker.files import under

    return under(paths or [DATA], (".yaml", ".yml"))


def shown_as(path: str) -> str:
    """A shipped data file is named by its place in the repository, wherever the command runs (the
    committed report names it so); any other file as it was given."""
    full = os.path.abspath(path)
    if os.path.dirname(full) == DATA:
        return "checker/references/data/" + os.path.basename(full)
    return path


def load_file(path: str) -> list:
    return read(path)[1]


def read(path: str, encodings: bool = True) -> tuple:
    """(the YAML document, its references). `encodings` false: each entry's encoding is checked for
    its kind alone (the spec loader reads the entries' pins and names, not their layouts)."""
    from checker.recording import read_regular

    doc = yamlload.load(shown_as(path), read_regular(path, yamlload.MAX_BYTES))
    d = _Doc(doc)
    top = d.mapping(doc.value, [], ("library", "repo", "commit", "path", "entries"), ("note",))
    library = d.choice(top["library"], ["library"], LIBRARIES)
    repo = d.string(top["repo"], ["repo"], r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", "owner/name")
    commit = d.string(top["commit"], ["commit"], r"[0-9a-f]{40}", "a 40-hex commit")
    upstream = d.string(top["path"], ["path"])
    entries = top["entries"]
    if not isinstance(entries, list) or not entries or len(entries) > MAX_ENTRIES:
        d.err(["entries"], f"expected a list of 1..{MAX_ENTRIES} entries, found {_kind(entries)}")
    out, names = [], {}
    for k, e in enumerate(entries):
        out.append(_entry(d, e, ["entries", k], library, repo, commit, upstream, doc.path, encodings))
        key = (out[-1].name, out[-1].commit)
        if key in names:
            d.err(["entries", k, "name"], f"entry {out[-1].name!r} at this commit is given twice (first at "
                                          f"line {names[key].line})")
        names[key] = out[-1].span
    return doc, out


def _entry(d: _Doc, e, path, library, repo, commit, upstream, file, encodings=True) -> Reference:
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
            d.err(path + ["fragment", "params"], f"expected a mapping of parameters ({{N: 64}}), found {_kind(ps)}")
        # a shape's parameter (N: 8..256), or a block-scaling selector (thread-id-a: 0..3)
        params = tuple((d.string(k, path + ["fragment", "params"], r"[A-Z]|thread-id-[ab]", "a parameter name"),
                        d.integer(v, path + ["fragment", "params", k], 0 if k.startswith("thread-id") else 1, 1024))
                       for k, v in ps.items())
    enc = _encoding(d, e["encoding"], path + ["encoding"], expect) if encodings else \
        Encoding(_kind_of(d, e["encoding"], path + ["encoding"]), {}, d.doc.span(tuple(path + ["encoding"])))
    upstream_path = d.string(e["path"], path + ["path"]) if "path" in e else upstream
    return Reference(library, repo, entry_commit, upstream_path, name, line, anchor, spec, fid, params, status, note,
                     expect, enc, file, d.doc.span(tuple(path)))


def _kind_of(d: _Doc, enc, path) -> str:
    if not isinstance(enc, dict) or "kind" not in enc:
        d.err(path, f"expected a mapping with kind: {' | '.join(KINDS)}")
    return d.choice(enc["kind"], path + ["kind"], KINDS)


def _encoding(d: _Doc, enc, path, expect) -> Encoding:
    kind = _kind_of(d, enc, path)
    span = d.doc.span(tuple(path))
    if kind == "cute":
        enc = d.mapping(enc, path, ("kind", "layout", "tile"), ("threads", "sparse"))
        d.string(enc["layout"], path + ["layout"])  # first: a list there has no text positions to take
        src = from_node(d.doc.nodes[tuple(path + ["layout"])], d.doc.text, d.doc.path)
        tile = enc["tile"]
        if not isinstance(tile, list) or len(tile) != 2:
            d.err(path + ["tile"], f"expected [rows, cols], found {_kind(tile)}")
        tile = tuple(d.integer(x, path + ["tile", k], 1, 4096) for k, x in enumerate(tile))
        threads = d.choice(enc.get("threads", "default"), path + ["threads"], THREADS)
        from checker.compare import cute

        try:
            layout, problem = cute.parse(src, "CuTe layout"), None
        except SpecError as exc:
            if expect != "malformed":
                raise
            layout, problem = None, exc
        # sparse: S of sparse_elem<S, T>, the layout's value type (a sparse A: the tile is uncompressed);
        # a block-scaled SFALayout's SFVecSize (16 or 32 values of K share one scale factor)
        sparse = d.integer(enc.get("sparse", 1), path + ["sparse"], 1, 32)
        if layout is not None and layout.values % sparse:
            d.err(path + ["sparse"], f"expected a divisor of the layout's {layout.values} values, found {sparse}")
        from checker.compare.candidates import MAX_SEARCHED

        # a sparse layout holds only some points of its domain: compare asks each one beyond the spec's
        if sparse > 1 and layout is not None and layout.threads * (layout.values // sparse) > MAX_SEARCHED:
            d.err(path + ["layout"], f"a sparse layout of {layout.threads} threads x {layout.values // sparse} "
                                     f"elements: more than {MAX_SEARCHED} points")
        return Encoding(kind, {"layout": layout, "text": enc["layout"], "tile": tile, "threads": threads,
                               "problem": problem, "sparse": sparse}, span)
    if kind == "cute-copy":
        from checker.references.copydata import cute_copy

        return Encoding(kind, cute_copy(d, enc, path, expect), span)
    if kind == "triton":
        enc = d.mapping(enc, path, ("kind", "register", "lane"), ("warp",))
        return Encoding(kind, {"register": d.pairs(enc["register"], path + ["register"], 20),
                               "lane": d.pairs(enc["lane"], path + ["lane"], 5),
                               "warp": d.pairs(enc.get("warp", []), path + ["warp"], 5)}, span)
    if kind == "formula":
        enc = d.mapping(enc, path, ("kind", "formula", "elements"), ("transposed",))
        d.string(enc["formula"], path + ["formula"])
        src = from_node(d.doc.nodes[tuple(path + ["formula"])], d.doc.text, d.doc.path)
        from checker.formula.parser import parse_block

        block = parse_block(src)  # a syntax error is located in the data file
        transposed = enc.get("transposed", False)
        if not isinstance(transposed, bool):
            d.err(path + ["transposed"], f"expected true or false, found {_kind(transposed)}")
        return Encoding(kind, {"block": block, "src": src, "elements": d.integer(enc["elements"],
                                                                                  path + ["elements"], 1, 4096),
                               "transposed": transposed}, span)
    if kind == "mosaic-tiled":
        from checker.references import mosaic
        from checker.references.mosaic import Replicated

        enc = d.mapping(enc, path, ("kind", "tiling", "warp_dims", "lane_dims", "vector_dim"), ("array", "warp"))
        tiling = enc["tiling"]
        if not isinstance(tiling, list) or not 1 <= len(tiling) <= 8 or not all(
                isinstance(t, list) and 1 <= len(t) <= 4 for t in tiling):
            d.err(path + ["tiling"], f"expected a list of 1..8 tiles, each a list of 1..4 sizes, found {_kind(tiling)}")
        tiles = tuple(tuple(d.integer(x, path + ["tiling", k, j], 1, 1024) for j, x in enumerate(t))
                      for k, t in enumerate(tiling))
        lanes = enc["lane_dims"]
        if not isinstance(lanes, list) or not 1 <= len(lanes) <= 4:
            d.err(path + ["lane_dims"], f"expected a list of 1..4 dimensions, found {_kind(lanes)}")
        # TiledLayout's own tuple, where a Replicated(n) is {replicated: n} (mma.py's layouts
        # replicate an operand over warps)
        given = enc["warp_dims"]
        if not isinstance(given, list) or not 1 <= len(given) <= 4:
            d.err(path + ["warp_dims"], f"expected a list of 1..4 dimensions, found {_kind(given)}")
        warps = []
        for k, x in enumerate(given):
            if isinstance(x, dict):
                x = d.mapping(x, path + ["warp_dims", k], ("replicated",))
                warps.append(Replicated(d.integer(x["replicated"], path + ["warp_dims", k, "replicated"], 1, 4)))
            else:
                warps.append(d.integer(x, path + ["warp_dims", k], -16, 15))
        array = None
        if "array" in enc:
            array = enc["array"]
            if not isinstance(array, list) or len(array) != 2:
                d.err(path + ["array"], f"expected [rows, cols], found {_kind(array)}")
            array = tuple(d.integer(x, path + ["array", k], 1, 4096) for k, x in enumerate(array))
        warp = d.integer(enc["warp"], path + ["warp"], 0, 3) if "warp" in enc else None
        fields = {"tiling": tiles, "warp_dims": tuple(warps),
                  "lane_dims": tuple(d.integer(x, path + ["lane_dims", k], -16, 15) for k, x in enumerate(lanes)),
                  "vector_dim": d.integer(enc["vector_dim"], path + ["vector_dim"], -16, 15),
                  "array": array, "warp": warp, "at": d.doc.span(tuple(path + ["tiling"]))}
        # what upstream refuses is refused here, at its field: it lays out no array at all
        problem = mosaic.refused(tiles, fields["warp_dims"], fields["lane_dims"], fields["vector_dim"])
        if problem is not None:
            field, k, message = problem
            d.err(path + [field] + ([k] if k is not None else []), message)
        if array is not None and (array[0] * array[1] > mosaic.MAX_POINTS or mosaic.tile_shape(array, tiles) is None):
            d.err(path + ["array"], f"expected an array of at most {mosaic.MAX_POINTS} cells that the tiling "
                                    f"applies to, found {list(array)}")
        return Encoding(kind, fields, span)
    enc = d.mapping(enc, path, ("kind", "entries"))
    rows = enc["entries"]
    if not isinstance(rows, list) or not rows or len(rows) > MAX_TABLE:
        d.err(path + ["entries"], f"expected a list of 1..{MAX_TABLE} [thread, i, row, col], found {_kind(rows)}")
    table = {}
    for k, r in enumerate(rows):
        if not isinstance(r, list) or len(r) != 4:
            d.err(path + ["entries", k], f"expected [thread, i, row, col], found {_kind(r)}")
        t, i, row, col = (d.integer(x, path + ["entries", k, j], 0, (1 << 16) - 1) for j, x in enumerate(r))
        if (t, i) in table:
            d.err(path + ["entries", k], f"thread {t}, i {i} is given twice")
        table[(t, i)] = (row, col)
    return Encoding(kind, {"entries": table}, span)


def load_copy_atom(path: str):
    """A user's copy atom (`checker compare --cute-copy`): one mapping, written as a data file's
    cute-copy encoding, validated as one (checker.compare.copyatom.CopyAtom)."""
    from checker.recording import read_regular
    from checker.references.copydata import cute_copy

    doc = yamlload.load(path, read_regular(path, yamlload.MAX_BYTES))
    d = _Doc(doc)
    if isinstance(doc.value, dict) and "kind" in doc.value:  # a data file's encodings check it; so does this
        d.choice(doc.value["kind"], ["kind"], ("cute-copy",))
    return cute_copy(d, doc.value, [], "equal")["atom"]


def read_excerpts(path: str) -> list:
    """checker/references/excerpts.yaml: the upstream lines container readings quote, each {repo,
    commit, path, first: its first line's number, pins: the [first, last] ranges cited, text: the
    lines}, every pin inside the lines copied."""
    from checker.recording import read_regular

    shipped = os.path.abspath(path) == os.path.join(os.path.dirname(DATA), "excerpts.yaml")
    doc = yamlload.load("checker/references/excerpts.yaml" if shipped else path, read_regular(path, yamlload.MAX_BYTES))
    d = _Doc(doc)
    held = d.mapping(doc.value, [], ("excerpts",))["excerpts"]
    if not isinstance(held, list) or not held or len(held) > MAX_ENTRIES:
        d.err(["excerpts"], f"expected a list of 1..{MAX_ENTRIES} excerpts, found {_kind(held)}")
    for k, x in enumerate(held):
        at = ["excerpts", k]
        d.mapping(x, at, ("repo", "commit", "path", "first", "pins", "text"))
        d.string(x["repo"], at + ["repo"], r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", "owner/name")
        d.string(x["commit"], at + ["commit"], r"[0-9a-f]{40}", "a 40-hex commit")
        d.string(x["path"], at + ["path"])
        last = d.integer(x["first"], at + ["first"], 1) + len(d.string(x["text"], at + ["text"]).splitlines()) - 1
        if not isinstance(x["pins"], list) or not 1 <= len(x["pins"]) <= 64:
            d.err(at + ["pins"], f"expected a list of 1..64 [first, last] line ranges, found {_kind(x['pins'])}")
        for j, pin in enumerate(x["pins"]):
            if not isinstance(pin, list) or len(pin) != 2:
                d.err(at + ["pins", j], f"expected [first, last], found {_kind(pin)}")
            lo, hi = (d.integer(n, at + ["pins", j, i], 1) for i, n in enumerate(pin))
            if not x["first"] <= lo <= hi <= last:
                d.err(at + ["pins", j], f"expected lines within the {x['first']}-{last} copied, first to last, found "
                                        f"{lo}-{hi}")
    return held


def load_all(paths=None) -> list:
    """Every reference of every data file, in file order; the first malformed file raises."""
    out = []
    for f in files(paths):
        out.extend(load_file(f))
    return out
