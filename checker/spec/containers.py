"""`containers:` of an ldmatrix spec -> the model: where each 4-bit or 6-bit value sits in its
8-bit container, as mma .kind::f8f6f4 reads it and as ldmatrix .b8x16.<format> leaves it.

The mma side is the document's: a sentence, verbatim (tests/unit/test_containers.py holds it to
9.1 and 9.2), and for each type the words of it that place the value ("resides in central 4 bits
of the 8-bit container"), from which the bits are computed here, never typed in. The ldmatrix
side is a reading of published code (the document's "Optional Decompression" section, which
says, is not in this project's copies): the bits, what the other bits hold, the sources with
their commit and lines, and its standing. checker/theorems/containers.py compares the two."""
from __future__ import annotations

import re
from dataclasses import dataclass

from checker.errors import SourceSpan, SpecError
from checker.spec import provenance
from checker.spec.witness import declared

CONTAINER_BITS = 8
# the document's phrases for a value's place in its container: "lower 6 bits", "central 4 bits"
_PLACE = re.compile(r"\b(lower|central|upper) (\d) bits of the 8-bit container\b")
# the formats' value widths, from their names (".b6x16_p32": 16 6-bit elements, 32 bits of padding)
FORMAT_WIDTH = {"b4x16_p64": 4, "b6x16_p32": 6}


@dataclass(frozen=True)
class Read:
    """Where mma reads a type: bits low .. low + width - 1 of the container."""

    type: str
    words: str
    low: int
    width: int
    sentence: str  # the stated sentence the words are in
    span: SourceSpan


@dataclass(frozen=True)
class Source:
    repo: str
    commit: str
    path: str
    lines: tuple
    says: str


@dataclass(frozen=True)
class Memory:
    """How a shared-memory row holds the 16 values ldmatrix reads: value c in bits
    width*c .. width*c + width - 1 of the first `packed_bytes` bytes, little-endian."""

    packed_bytes: int
    standing: str
    basis: str


@dataclass(frozen=True)
class Load:
    """Where ldmatrix .b8x16.<format> leaves each value: bits low .. low + width - 1; the
    container's other bits zero (upper = zero) or unsaid (any value)."""

    format: str
    width: int
    low: int
    upper: str
    standing: str
    read_from: tuple
    memory: Memory | None
    span: SourceSpan

    @property
    def padding_mask(self) -> int:
        return ((1 << CONTAINER_BITS) - 1) & ~(((1 << self.width) - 1) << self.low)


@dataclass(frozen=True)
class Theorem:
    id: str
    statement: str
    format: str
    type: str
    shift: int | None
    expect: str
    span: SourceSpan
    witness: tuple | None = None  # expect refuted: the smallest point it is refuted at (values, then paddings)


@dataclass(frozen=True)
class Containers:
    document: tuple  # (section, title, seed, versions, stated)
    reads: dict  # type -> Read
    loads: dict  # format -> Load
    theorems: tuple
    span: SourceSpan


def place(words: str) -> tuple | None:
    """(low, width) of the document's words, or None where they name no place."""
    m = _PLACE.search(words)
    if m is None:
        return None
    where, width = m.group(1), int(m.group(2))
    low = {"lower": 0, "central": (CONTAINER_BITS - width) // 2, "upper": CONTAINER_BITS - width}[where]
    return low, width


def containers(meaning, value: dict, family: str) -> Containers | None:
    c = value.get("containers")
    if c is None:
        return None
    base = ["containers"]
    if family != "ldmatrix":
        raise SpecError(meaning.span(base, key=True), f"containers: are for ldmatrix specs, not {family}")
    sentences = [s for d in c["document"] for s in d["stated"]]
    reads = {}
    for k, r in enumerate(c["reads"]):
        span = meaning.span(base + ["reads", k, "words"])
        if r["type"] in reads:
            raise SpecError(meaning.span(base + ["reads", k, "type"]), f"{r['type']} is read twice")
        sentence = next((s for s in sentences if r["words"] in " ".join(s.split())), None)
        if sentence is None:
            raise SpecError(span, f"the words {r['words']!r} are in no stated sentence of containers.document")
        if f"`.{r['type']}`" not in sentence:
            raise SpecError(span, f"the sentence with {r['words']!r} is not about .{r['type']}: {sentence!r}")
        where = place(r["words"])
        if where is None:
            raise SpecError(span, f"{r['words']!r} names no place in the container",
                            "the document's words: 'lower N bits', 'central N bits' or 'upper N bits' of the 8-bit container")
        reads[r["type"]] = Read(r["type"], r["words"], where[0], where[1], sentence, span)
    loads = {}
    for k, ld in enumerate(c["loads"]):
        path = base + ["loads", k]
        lo, hi = ld["bits"]
        if ld["format"] in loads:
            raise SpecError(meaning.span(path + ["format"]), f"{ld['format']} is given twice")
        if ld["width"] != FORMAT_WIDTH[ld["format"]] or hi - lo + 1 != ld["width"]:
            raise SpecError(meaning.span(path + ["bits"]), f"bits {lo}..{hi} hold {hi - lo + 1} bits, but a "
                            f".{ld['format']} value has {FORMAT_WIDTH[ld['format']]} (width {ld['width']})")
        mem = ld.get("memory")
        memory = Memory(mem["packed_bytes"], mem["standing"], mem["basis"]) if mem else None
        # the bytes the row's 16 packed values take (the padding after them is not theirs): fewer
        # cannot hold them, more would have the probe lay its inputs out on a wrong stride
        if memory is not None and memory.packed_bytes * 8 != 16 * ld["width"]:
            raise SpecError(meaning.span(path + ["memory", "packed_bytes"]),
                            f"16 {ld['width']}-bit values packed take {16 * ld['width'] // 8} bytes, "
                            f"not {memory.packed_bytes}")
        provenance.excerpts(meaning, ld["read_from"], path + ["read_from"])
        sources = tuple(Source(s["repo"], s["commit"], s["path"], tuple(s["lines"]), s["says"]) for s in ld["read_from"])
        loads[ld["format"]] = Load(ld["format"], ld["width"], lo, ld["upper"], ld["standing"], sources, memory,
                                   meaning.span(path))
    theorems, seen, claims = [], set(), {}
    for k, t in enumerate(c["theorems"]):
        path = base + ["theorems", k]
        if t["id"] in seen:
            raise SpecError(meaning.span(path + ["id"]), f"duplicate container theorem id {t['id']!r}")
        seen.add(t["id"])
        # two theorems of one claim: one was meant to be about another type, format or shift, and
        # that claim is proved by neither (the id and statement still say it is)
        claim = (t["format"], t["type"], t.get("shift"))
        if claim in claims:
            first, at = claims[claim]
            raise SpecError(meaning.span(path + ["type"]), f"theorem {t['id']!r} claims what {first!r} (line "
                            f"{at.line}) does (.{t['type']} loaded by .{t['format']}, shift {t.get('shift') or 0})")
        claims[claim] = (t["id"], meaning.span(path + ["type"]))
        if t["format"] not in loads:
            raise SpecError(meaning.span(path + ["format"]), f"no load gives where .{t['format']} leaves a value")
        if t["type"] not in reads:
            raise SpecError(meaning.span(path + ["type"]), f"no read gives where mma reads .{t['type']}")
        load, read = loads[t["format"]], reads[t["type"]]
        if load.width != read.width:
            # a 6-bit .e3m2 "loaded" by .b4x16_p64 lands inside the bits mma reads and the theorem
            # held, about two bits that no load gives
            raise SpecError(meaning.span(path + ["format"]), f".{t['format']} loads {load.width}-bit values, but "
                            f".{t['type']} has {read.width} bits (the document's {read.words!r})",
                            "a theorem is about a type and the format that loads values of its width")
        witness = declared(t.get("witness"), t["expect"], "theorem", lambda key: meaning.span(path + ["witness"], key=key))
        theorems.append(Theorem(t["id"], t["statement"], t["format"], t["type"], t.get("shift"), t["expect"],
                                meaning.span(path), witness))
    document = tuple((d["section"], d["title"], d["seed"], tuple(d["versions"]), tuple(d["stated"])) for d in c["document"])
    return Containers(document, reads, loads, tuple(theorems), meaning.span(base, key=True))
