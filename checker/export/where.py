"""Which lane, element, register and bits hold a matrix cell (`checker where`), as data and as text."""
from __future__ import annotations

from checker.bounded import shown
from checker.errors import UsageError
from checker.export import derive
from checker.export.checked import fragment
from checker.properties import chunk, enumerate as py_engine
from checker.semantics import sparse
from checker.spec.model import KIND_BITS
from checker.spec.reading import as_printed
from checker.results import PROVED
from checker.terminal import lines as text_lines


def where(spec_path: str, fid: str, row: int, col: int, compressed: bool = False, printed: int | None = None) -> dict:
    """`printed`: K, to ask the document's printed text of the fragment's K-th erratum (the
    replay of a covers refutation of it)."""
    spec, frag, reading = fragment(spec_path, fid)
    if printed is not None:
        reading = as_printed(frag, printed)
    if frag.sparsity is not None and not compressed:
        return dict(_where_sparse(spec, frag, reading, row, col), as_printed=printed)
    if compressed and frag.sparsity is None:
        raise UsageError(f"{fid} is not a sparse A: --compressed has nothing to compress")
    if not (0 <= row < frag.rows and 0 <= col < frag.cols):
        raise UsageError(f"{fid} is {frag.rows} x {frag.cols}: --row takes 0..{frag.rows - 1}, "
                         f"--col 0..{frag.cols - 1}")
    holders = []
    for k in range(1, len(frag.computations) + 1) if frag.computations else (None,):
        m = derive.build(frag, k, reading)
        for t, lane in enumerate(m.lanes):
            for i in range(m.n):
                if m.cell(t, i) == (row, col):
                    holders.append({"computation": k, "lane": lane, "i": i, "element": f"{frag.letter}{i}",
                                    "registers": _registers(frag, reading, i)})
                    if frag.threads.count > 32:  # a warpgroup: thread T<t> is lane t % 32 of warp t / 32
                        holders[-1].update(thread=lane, warp=lane // 32, lane=lane % 32)
    bijective = all(py_engine.decide(reading.layout, d, reading.n, frag.rows, frag.cols)["injective"][0] == PROVED
                    for _, d in frag.domains())
    return {"spec": spec_path, "shape": spec.shape, "fragment": fid, "operand": frag.operand, "row": row, "col": col,
            "holders": holders, "unique": bijective and len(holders) == max(1, len(frag.computations)),
            "as_printed": printed}


def _where_sparse(spec, frag, reading, row: int, col: int) -> dict:
    """In a sparse A a cell is held, if it is non-zero, by one of the elements of the register
    whose range covers it; which one the metadata decides (semantics.sparse)."""
    k = frag.sparsity.k
    if not (0 <= row < frag.rows and 0 <= col < k):
        raise UsageError(f"{frag.id} is a sparse {frag.rows} x {k} A: --row takes 0..{frag.rows - 1}, --col 0..{k - 1} "
                         f"(--compressed asks about the {frag.rows} x {frag.cols} compressed A)")
    g = sparse.geometry(frag)
    points = [(lane, i) for lane in range(frag.threads.count) for i in range(reading.n)]
    rows, firsts, lasts = chunk.ranges(reading.layout, points)
    ranges = sorted({(lane, i // g.per_register, f, la) for (lane, i), r, f, la in zip(points, rows, firsts, lasts)
                     if r == row and f <= col <= la})
    holders = []
    loose = sparse.unordered_types(spec.family, frag.types)
    for lane, reg, first, last in ranges:
        for p, c, q, index, increasing in sparse.candidates(g, col - first):
            if not (increasing or loose):
                continue  # no type of the fragment lets a chunk's indices go down
            i = reg * g.per_register + p
            start = first + c * g.chunk
            kinds = frag.types if increasing else loose
            registers = [x for x in _registers(frag, reading, i) if set(x["types"]) & set(kinds)]
            holders.append({"computation": None, "lane": lane, "i": i, "element": f"{frag.letter}{i}",
                            "registers": registers, "range": [first, last],
                            "metadata": {"chunk": [start, start + g.chunk - 1], "index": q, "value": index,
                                         "unit": g.unit, "increasing": increasing,
                                         # the types this holder is possible for; of mma.sp, not increasing: with
                                         # plain .sp only (::ordered_metadata's indices increase)
                                         "types": list(kinds)}})
            if frag.threads.count > 32:  # a warpgroup: thread T<t> is lane t % 32 of warp t / 32
                holders[-1].update(thread=lane, warp=lane // 32, lane=lane % 32)
    regs = {(lane, reg) for lane, reg, _, _ in ranges}
    return {"spec": spec.path, "shape": spec.shape, "fragment": frag.id, "operand": frag.operand, "row": row,
            "col": col, "family": spec.family, "types": list(frag.types),
            "sparse": {"k": k, "granularity": f"{g.nonzero}:{g.chunk}", "pairwise": g.pairwise,
                       "indices_per_chunk": g.picked, "compressed_cols": frag.cols},
            "holders": holders, "unique": len(regs) == 1}


_ORDINAL = ("first", "second", "third", "fourth")


def _metadata_rule(w: dict) -> str:
    """What the document asks of a chunk's indices, for this fragment's instruction and types."""
    if w["sparse"]["indices_per_chunk"] == 1:
        return "the metadata names the position of each chunk's one non-zero element"
    distinct = "a chunk's indices are distinct (0b0000, 0b0101, 0b1010, 0b1111 are invalid)"
    if w["family"] == "wgmma.sp":
        return distinct
    always = [t for t in w["types"] if t in sparse.ORDERED_ALWAYS]
    if len(always) == len(w["types"]):
        return "a chunk's indices increase"
    return (f"with mma.sp {distinct}; with mma.sp::ordered_metadata"
            + (f", and for {'/'.join('.' + t for t in always)}," if always else "") + " they increase")


def _registers(frag, reading, i: int) -> list:
    """Where each table row's registers put element i: at its place in the row's element list
    (the reading's, or the document's as printed where an element-list erratum is reverted: the
    printed m16n8k16 .f16 row `c0, c1, c1, c2` puts c1 in two places and c3 in none, with
    `register` None); a row whose cell lists nothing puts element i at place i."""
    out = []
    n = dict(frag.params).get("N")
    name = f"{frag.letter}{i}"
    for t, names in zip(frag.table, reading.elements):
        if t.values is not None and n not in t.values:
            continue  # a type this instance's N does not have (wgmma .s32 at N = 40)
        p = t.per_register or 1
        w = KIND_BITS[t.kind] // p
        places = [j for j, x in enumerate(names) if x == name] if names is not None else [i]
        for j in places:
            lo = (j % p) * w
            out.append({"types": list(t.types), "register": j // p, "count": t.count, "kind": t.kind,
                        "bits": [lo, lo + w - 1]})
            if t.container_bits:  # the bits are the container's, not the narrower types' values
                out[-1]["container_bits"] = t.container_bits
        if not places:
            out.append({"types": list(t.types), "register": None, "count": t.count, "kind": t.kind, "bits": None,
                        "listed": ", ".join(names)})
    return out


def where_text(w: dict) -> str:
    if "sparse" in w:
        return _where_sparse_text(w)
    head = f"{w['operand']}[{w['row']}][{w['col']}] in {w['shape']} {w['fragment']}" + _printed(w)
    if not w["holders"]:
        return text_lines([f"{head}: no lane holds it ({_NONE[bool(w.get('as_printed'))]})"])
    lines = [f"{head}:"]
    for h in w["holders"]:
        comp = f"MMA computation {h['computation']}: " if h["computation"] else ""
        who = f"thread {h['thread']} (warp {h['warp']}, lane {h['lane']})" if "thread" in h else f"lane {h['lane']}"
        lines.append(f"  {comp}{who}, element {h['element']}")
        for r in h["registers"]:
            types = "/".join("." + t for t in r["types"])
            if r["register"] is None:
                lines.append(f"      {types}: in no register: the element list ({shown(r['listed'], 60, False)}) does not name "
                             f"{h['element']}")
                continue
            bits = "" if r["bits"] == [0, KIND_BITS[r["kind"]] - 1] else f", {_bits(*r['bits'])}"
            bits += _container(r)
            lines.append(f"      {types}: register {r['register']} of {r['count']} .{r['kind']}{bits}")
    lines.append("  the only holder" + ("s, one per MMA computation" if len(w["holders"]) > 1 else "")
                 + ": the fragment is injective over every point (enumerated)" if w["unique"]
                 else "  WARNING: the fragment is not injective, so this answer is not unique")
    return text_lines(lines)


_NONE = {False: "the spec does not cover this cell: `checker prove` says where",
         True: "the printed text leaves this cell to no lane, as `checker prove` says"}


def _container(r: dict, section: str = "9.7.14.5.14") -> str:
    """The bits of a row whose elements sit in containers (.kind::f8f6f4's 4-bit and 6-bit types in
    8 bits) are the container's, not the value's: said, so that nobody packs a value there. Where
    in it is the document's (mma 9.7.14.5.14, mma.sp 9.7.14.6.3)."""
    if not r.get("container_bits"):
        return ""
    return (f" (each value in a container of {r['container_bits']} bits: {section} says where a 4-bit or "
            "6-bit value sits in it)")


def _bits(low: int, high: int) -> str:
    return f"bit {low}" if low == high else f"bits {low}..{high}"  # a .b1 element is one bit


def _printed(w: dict) -> str:
    return f" as printed (erratum {w['as_printed']})" if w.get("as_printed") else ""


def _where_sparse_text(w: dict) -> str:
    sp = w["sparse"]
    head = (f"{w['operand']}[{w['row']}][{w['col']}] in {w['shape']} {w['fragment']}{_printed(w)} (sparse {w['operand']}, "
            f"{sp['granularity']}{' pair-wise' if sp['pairwise'] else ''}: lanes hold only the non-zero elements)")
    if not w["holders"]:
        return text_lines([f"{head}: no register's range covers it (`checker prove` says where the spec fails)"])
    lines = [f"{head}:"]
    by_range: dict = {}
    for h in w["holders"]:
        who = f"thread {h['thread']} (warp {h['warp']}, lane {h['lane']})" if "thread" in h else f"lane {h['lane']}"
        by_range.setdefault((who, h["registers"][0]["register"], tuple(h["range"])), []).append(h)
    for (who, reg, (first, last)), hs in by_range.items():
        r = hs[0]["registers"][0]
        lines.append(f"  columns {first}..{last} of row {w['row']} are held by {who}, register {reg} of "
                     f"{r['count']} .{r['kind']}")
        lines.append(f"  if {w['operand']}[{w['row']}][{w['col']}] is non-zero, the metadata says which element holds it:")
        for h in hs:
            md = h["metadata"]
            what = "two-wide sub-chunk" if md["unit"] == 2 else "position"
            bits = "; ".join(f"{'/'.join('.' + t for t in x['types'])} {_bits(*x['bits'])}{_container(x, '9.7.14.6.3')}"
                             for x in h["registers"])
            only = ""
            if not md["increasing"] and w["family"] != "wgmma.sp":
                whose = "" if md["types"] == w["types"] else "/".join("." + t for t in md["types"]) + " "
                only = f" -- {whose}with mma.sp only: ::ordered_metadata's indices increase"
            lines.append(f"    {h['element']:>5}  when the {_ORDINAL[md['index']]} index of chunk "
                         f"[{md['chunk'][0]}..{md['chunk'][1]}] is {md['value']} ({what} {md['value']}); {bits}{only}")
    rule = _metadata_rule(w)
    lines.append(f"  ({rule}. Which lane and bits of the metadata operand hold them is drawn only in the document's "
                 "figures.)")
    if not w["unique"]:
        lines.append("  WARNING: more than one register's range covers this cell: the fragment is not a tiling")
    return text_lines(lines)
