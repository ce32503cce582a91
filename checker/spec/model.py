"""The typed spec: frozen dataclasses, every value with its file:line:col."""
from __future__ import annotations

import re

from dataclasses import dataclass

from checker.errors import SourceSpan
from checker.families import FAMILIES, WARP, Threads
from checker.source import SourceText

TYPE_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "s32": 32, "u8": 8, "s8": 8,
             "e4m3": 8, "e5m2": 8, "e3m2": 8, "e2m3": 8, "e2m1": 4, "u4": 4, "s4": 4, "b1": 1,
             "b16": 16, "b8": 8, "b32": 32, "ue8m0": 8, "ue4m3": 8}
# b8 / b16: the byte or byte pair of a .b32 register a block-scaling selector picks (checker/spec/scale_factors.py);
# b32: a whole register (tcgen05.ld / tcgen05.st move .b32 registers)
KIND_BITS = {"f16x2": 32, "b32": 32, "f32": 32, "s32": 32, "f64": 64, "b64": 64, "b8": 8, "b16": 16}
_TYPE = re.compile(r"\.(f16x2|bf16|f16|tf32|f32|f64|e4m3|e5m2|e3m2|e2m3|e2m1|u8|s8|u4|s4|b1|s32|b32|b16|b64)\b")


def named_types(text: str) -> set:
    """The PTX types a text names; a register kind `.f16x2` names `.f16`."""
    return {m.group(1).replace("f16x2", "f16") for m in _TYPE.finditer(text)}


@dataclass(frozen=True)
class Erratum:
    """A printed text kept as printed, the reading used instead, and what the printed one breaks."""

    field: str  # formula | header | elements | caption | fragment, miscellaneous, elements_note (a row's cells) |
    # title | stated (a section's sentences) | same_as
    printed: str  # "" only for an Elements cell the document leaves empty
    value: SourceText
    breaks: tuple
    erratum: str
    span: SourceSpan
    row: int | None  # table row, for a row's cells; for a stated sentence, which one
    kind: str = "contradiction"  # or "judgment": the printed text is odd, not self-contradictory

    @property
    def words(self) -> bool:
        """An erratum of the document's words (checker.theorems.wording), not of a layout: the
        fragment proofs neither apply nor revert it."""
        return self.field in WORD_FIELDS or self.printed == "" or set(self.breaks) <= WORD_CHECKS


WORD_FIELDS = frozenset({"caption", "fragment", "title", "same_as", "stated", "miscellaneous", "elements_note"})
WORD_CHECKS = frozenset({"types-named", "register-words", "wording", "elements-listed"})
LAYOUT_CHECKS = frozenset({"fragment-shape", "defined", "in-range", "injective", "covers", "chunk"})


@dataclass(frozen=True)
class TableRow:
    """One row of a fragment table: types, registers and the element list."""

    types: tuple
    fragment: str
    count: int
    kind: str
    per_register: int | None
    elements: SourceText | None
    span: SourceSpan
    container_bits: int | None = None  # an element's bits in its register, where wider than its type
    out_of: int | None = None  # sparse A: "... non-zero elements out of 4 consecutive elements"
    elements_note: str | None = None  # sparse A: the Elements cell, which describes rather than lists
    fragment_span: SourceSpan | None = None
    miscellaneous: str | None = None  # wgmma: the Miscellaneous Information cell (the values of N)
    values: tuple | None = None  # the parameter's values this row's types exist at; None: every one
    kind_span: SourceSpan | None = None  # registers' kind: where a kind the Fragment cell does not name is refuted
    count_span: SourceSpan | None = None  # registers' count, named where the Fragment cell says another
    types_span: SourceSpan | None = None  # where types the Fragment cell does not name are refuted, when the cell agrees with its caption
    cell_spans: tuple = ()  # (field, span) of the row's other cells the words theorem reads (miscellaneous, elements_note)
    # the Elements cell of a row above that spans this one (a merged cell), where the row prints none
    # of its own: its list is this row's too (a sparse A's note, its note)
    spanned_by: SourceText | None = None


@dataclass(frozen=True)
class Source:
    """A published encoding of a layout, pinned: where a reading of a figure was read from."""

    library: str  # CuTe | Triton | MLIR | JAX
    repo: str
    commit: str
    path: str
    line: int
    name: str  # upstream's own name
    reference: str | None  # checker/references/data/<reference>.yaml, where it is transcribed


@dataclass(frozen=True)
class FigureReading:
    """A layout the document draws only: the formula block the figure is read as (the
    fragment's `formula`), and its standing: agreed by every source, or extrapolated where none
    covers the fragment."""

    figure: str
    standing: str  # agreed | extrapolated
    sources: tuple
    note: str | None
    span: SourceSpan

@dataclass(frozen=True)
class Sparsity:
    """Structured sparsity of A (9.7.14.6.1): `nonzero` of every `chunk` adjacent elements of a
    row are non-zero, and only those are stored; `pairwise`: they come in two-wide sub-chunks."""

    nonzero: int
    chunk: int
    pairwise: bool
    section: str
    printed: str  # the storage section's sentence, verbatim
    k: int  # columns of the sparse A; the fragment's own cols are the compressed A's
    span: SourceSpan
    per_register: int  # non-zero elements a register holds (every table row says the same) ...
    out_of: int  # ... out of this many consecutive columns: [firstcol ... lastcol]


@dataclass(frozen=True)
class Computation:
    """One of the MMA computations of mma.m8n8k4 .f16, and its lanes."""

    id: int
    printed: str
    lanes: tuple  # every lane, sorted
    span: SourceSpan


@dataclass(frozen=True)
class Fragment:
    """One operand's layout for some types: its table rows and its formula block."""

    id: str
    operand: str
    layout: str | None
    header: SourceText
    table: tuple
    figures: tuple
    formula: SourceText | None  # None: the document gives this fragment only as a figure
    errata: tuple
    section: str
    computations: tuple  # empty: one MMA over all 32 lanes
    rows: int
    cols: int
    span: SourceSpan
    caption: str | None = None  # the figure's caption, verbatim
    sparsity: Sparsity | None = None  # sparse A (mma.sp): rows x cols is the compressed A
    caption_span: SourceSpan | None = None
    family: str = "mma"
    threads: Threads = WARP  # who holds it: a warp's lanes, a warpgroup's threads
    params: tuple = ()  # (name, value) of a parametric shape's instance: (("N", 64),)
    # ldmatrix / stmatrix / movmatrix (a `layouts:` entry): `formula` is then a reading of the
    # figure, not the document's text, and these say what it is and where it was read from
    matrices: int = 1  # .num: matrices stacked in the tile
    forms: tuple = ()  # the PTX instructions it is
    read_from: tuple = ()  # "CuTe SM75_U32x1_LDSM_N": entries of checker/references/data
    basis: str | None = None  # what else the reading rests on, in words
    # wgmma (a fragment with `reading:`): the formula is a reading of a figure, with its sources
    figure_reading: FigureReading | None = None
    # mma with block scaling: the lanes that contribute it (the selector's), a part of the warp
    lanes: tuple | None = None

    @property
    def reading_only(self) -> bool:
        """The formula is a reading of a figure (with provenance), not the document's text."""
        return bool(self.forms) or self.figure_reading is not None

    @property
    def table_id(self) -> str:
        """The id its table is written under: a parametric fragment's instances (D.f32[N=64]) share
        one table, whose cells hold for every N, so what is said of a cell names D.f32."""
        return self.id.split("[", 1)[0] if self.params else self.id

    def types_here(self) -> tuple:
        """The types of the rows that exist at this instance's parameter value (wgmma .s32 only at
        some N); every type where the shape has no parameter."""
        value = dict(self.params).get("N")
        return tuple(t for row in self.table if row.values is None or value in row.values for t in row.types)

    @property
    def letter(self) -> str:
        return FAMILIES[self.family].operand(self.operand).letter

    @property
    def headers(self) -> tuple:
        """What the type column of its table may be headed."""
        return FAMILIES[self.family].operand(self.operand).headers

    @property
    def types(self) -> tuple:
        return tuple(t for row in self.table for t in row.types)

    def domains(self) -> list:
        """[(computation id or None, the threads that hold the fragment in it)]: one per MMA
        computation (m8n8k4 .f16), else one for every thread that holds it."""
        if self.computations:
            return [(c.id, c.lanes) for c in self.computations]
        if self.lanes is not None:
            return [(None, self.lanes)]
        return [(None, tuple(range(self.threads.count)))]

    def holders(self) -> tuple:
        """The threads that hold the fragment in any computation, in order: all of a warp's or
        warpgroup's but for a block-scale factor (the lanes its selector picks)."""
        return tuple(sorted({t for _, lanes in self.domains() for t in lanes}))

    def __repr__(self) -> str:  # one line: the generated one prints every table row, erratum and span
        return f"Fragment({self.id!r}: {self.operand} {self.rows}x{self.cols}, .{'/.'.join(self.types)}, at {self.span})"


@dataclass(frozen=True)
class SameAs:
    """mma.sp: "Matrix fragments for multiplicand B and accumulators C and D are the same as in
    case of Matrix Fragments for mma.m16n8k16 ...": the operands, and the fragments meant."""

    operands: tuple
    printed: str
    fragments: tuple  # "shape/id"
    span: SourceSpan
    errata: tuple = ()  # of the sentence's words
    printed_span: SourceSpan | None = None
    fragment_spans: tuple = ()  # where each of `fragments` is written: a name the sentence contradicts is refuted there, one that resolves to nothing is a spec error there


@dataclass(frozen=True)
class Section:
    """One section of the document and the fragments it gives."""

    section: str
    title: str
    seed: str
    computations: tuple
    fragments: tuple
    same_as: tuple = ()
    figures_only: tuple = ()  # Fragments with no formula: the document draws them only
    errata: tuple = ()  # of the title's words and of the stated sentences'
    title_span: SourceSpan | None = None
    versions: tuple = ()  # the document versions its text was checked against
    differences: tuple = ()  # Difference: where another version prints a row otherwise
    stated: tuple = ()  # the document's sentences a section's readings rest on, verbatim
    stated_spans: tuple = ()  # where each is written


@dataclass(frozen=True)
class Difference:
    """A table row as another version of the document prints it (tests/unit/test_versions.py)."""

    version: str
    fragment: str
    row: int  # 1-based
    fragment_cell: str
    elements_cell: str
    note: str
    span: SourceSpan | None = None  # its row number's place: where the words theorem refutes a cell of another row


@dataclass(frozen=True)
class Spec:
    """A spec file: the shape and its sections."""

    path: str
    shape: str
    m: int
    n: int | None  # None: a parameter (every instance has its own)
    k: int
    sections: tuple
    family: str = "mma"
    parameters: tuple = ()  # (name, values): ("N", (8, 16, ..., 256))
    compositions: tuple = ()  # checker.spec.layouts.Composition: ldmatrix & co. placed on mma fragments
    containers: object = None  # checker.spec.containers.Containers: where ldmatrix and mma put 4-/6-bit values
    parameters_span: object = None  # where `parameters:` is written: a value the spec it is "the same as" lacks is said there

    def fragments(self) -> tuple:
        return tuple(f for s in self.sections for f in s.fragments)

    def fragment(self, fid: str) -> Fragment | None:
        return next((f for f in self.fragments() if f.id == fid), None)

    def __repr__(self) -> str:  # one line; checker.load (docs/api.md) is the API to compute with
        return f"Spec({self.shape!r} at {self.path}: {', '.join(f.id for f in self.fragments())})"


def dims(family: str, operand: str, values: dict) -> tuple[int, int]:
    rows, cols = FAMILIES[family].operand(operand).dims
    return values[rows], values[cols]
