"""Reference data (checker/references/data/*.yaml): published layouts, transcribed with the upstream
file and commit they were read at, loaded and validated field by field. Every error is located
(file:line:col, what was expected, what was found) and raised as a SpecError (exit 3). The files'
form is checker.spec.refdata's (the spec loader reads it too); this module parses each entry's
encoding, the layout, which needs the comparison's parsers."""
from __future__ import annotations

from checker.errors import SpecError
from checker.spec import yamlload
from checker.spec.refdata import DATA, THREADS, Doc, Encoding, described, kind_of
from checker.source import from_node

MAX_TABLE = 1 << 16
# What the Mosaic GPU entries of one file may ask to be tiled, in cells, all together: a 200-byte
# entry may ask for a 65536-cell array (0.4 s to tile), so 512 of them, a 256 KiB file, were
# minutes of work; this many cells are about 6 s. An entry without `array` is tiled at its
# fragment's shape, charged here as the largest the document has (wgmma's D at N = 256).
MAX_TILED_CELLS = 1 << 20
LARGEST_FRAGMENT = 64 * 256


def files(paths=None) -> list:
    """The data files: those given (files or folders), or every *.yaml of the shipped folder."""
    from checker.files import under

    return under(paths or [DATA], (".yaml", ".yml"))


def load_file(path: str) -> list:
    return read(path)[1]


def read(path: str) -> tuple:
    """(the YAML document, its references, each encoding parsed)."""
    from checker.spec import refdata

    return refdata.read(path, _Budgeted())


class _Budgeted:
    """_encoding, the cells a file's mosaic-tiled entries ask for counted against MAX_TILED_CELLS."""

    def __init__(self):
        self.cells = 0

    def __call__(self, d: Doc, enc, path, expect) -> Encoding:
        out = _encoding(d, enc, path, expect)
        if out.kind == "mosaic-tiled":
            array = out.fields["array"]
            self.cells += array[0] * array[1] if array else LARGEST_FRAGMENT
            if self.cells > MAX_TILED_CELLS:
                d.err(path + ["array"] if array else path + ["kind"],
                      f"expected the mosaic-tiled entries of one file to ask for at most {MAX_TILED_CELLS} cells "
                      f"in all (an entry without array counts {LARGEST_FRAGMENT}), found {self.cells} by this one")
        return out


def _encoding(d: Doc, enc, path, expect) -> Encoding:
    kind = kind_of(d, enc, path)
    span = d.doc.span(tuple(path))
    if kind == "cute":
        enc = d.mapping(enc, path, ("kind", "layout", "tile"), ("threads", "sparse"))
        d.string(enc["layout"], path + ["layout"])  # first: a list there has no text positions to take
        src = from_node(d.doc.nodes[tuple(path + ["layout"])], d.doc.text, d.doc.path)
        tile = enc["tile"]
        if not isinstance(tile, list) or len(tile) != 2:
            d.err(path + ["tile"], f"expected [rows, cols], found {described(tile)}")
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
    if kind == "cute-tmem":
        from checker.references.copydata import cute_tmem

        return Encoding(kind, cute_tmem(d, enc, path, expect), span)
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
            d.err(path + ["transposed"], f"expected true or false, found {described(transposed)}")
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
            d.err(path + ["tiling"], f"expected a list of 1..8 tiles, each a list of 1..4 sizes, found {described(tiling)}")
        tiles = tuple(tuple(d.integer(x, path + ["tiling", k, j], 1, 1024) for j, x in enumerate(t))
                      for k, t in enumerate(tiling))
        lanes = enc["lane_dims"]
        if not isinstance(lanes, list) or not 1 <= len(lanes) <= 4:
            d.err(path + ["lane_dims"], f"expected a list of 1..4 dimensions, found {described(lanes)}")
        # TiledLayout's own tuple, where a Replicated(n) is {replicated: n} (mma.py's layouts
        # replicate an operand over warps)
        given = enc["warp_dims"]
        if not isinstance(given, list) or not 1 <= len(given) <= 4:
            d.err(path + ["warp_dims"], f"expected a list of 1..4 dimensions, found {described(given)}")
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
                d.err(path + ["array"], f"expected [rows, cols], found {described(array)}")
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
        d.err(path + ["entries"], f"expected a list of 1..{MAX_TABLE} [thread, i, row, col], found {described(rows)}")
    table = {}
    for k, r in enumerate(rows):
        if not isinstance(r, list) or len(r) != 4:
            d.err(path + ["entries", k], f"expected [thread, i, row, col], found {described(r)}")
        t, i, row, col = (d.integer(x, path + ["entries", k, j], 0, (1 << 16) - 1) for j, x in enumerate(r))
        if (t, i) in table:
            d.err(path + ["entries", k], f"thread {t}, i {i} is given twice")
        table[(t, i)] = (row, col)
    return Encoding(kind, {"entries": table}, span)


def load_copy_atom(path: str):
    """A user's copy atom (`checker compare --cute-copy`): one mapping, written as a data file's
    cute-copy encoding, validated as one (checker.compare.copyatom.CopyAtom)."""
    from checker.references.copydata import cute_copy

    return _user_atom(path, "cute-copy", cute_copy)


def load_tmem_atom(path: str):
    """A user's Tensor Memory copy atom (`checker compare --cute-tmem`): one mapping, written as a
    data file's cute-tmem encoding (registers, val_id, optional thr_id), validated as one
    (checker.compare.tmem.TmemAtom), named by its file in what compare says."""
    import dataclasses

    from checker.references.copydata import cute_tmem

    return dataclasses.replace(_user_atom(path, "cute-tmem", cute_tmem), origin=path)


def _user_atom(path: str, kind: str, encoding):
    from checker.recording import read_regular

    doc = yamlload.load(path, read_regular(path, yamlload.MAX_BYTES))
    d = Doc(doc)
    if isinstance(doc.value, dict) and "kind" in doc.value:  # a data file's encodings check it; so does this
        d.choice(doc.value["kind"], ["kind"], (kind,))
    return encoding(d, doc.value, [], "equal")["atom"]


def load_all(paths=None) -> list:
    """Every reference of every data file, in file order; the first malformed file raises."""
    out = []
    for f in files(paths):
        out.extend(load_file(f))
    return out
