"""The ldmatrix / stmatrix / movmatrix forms a spec describes, as the probe needs them: the
instruction, the layout(s) its `layouts:` entry gives, the tile (rows of 16 bytes, row r at the
address lane r gives), where each (lane, element) lies in it, and which targets run it (the
support rows of checker/catalogue.py).

The `.b8x16.b6x16_p32` and `.b8x16.b4x16_p64` forms load 6-bit and 4-bit data packed in memory
("16 unsigned 6-bit elements with 32 bits padding") into 8-bit containers; how the 16 elements
are packed in a row's 16 bytes, and where each lands in its container, is in the document's
"Optional Decompression" section, which this project has not transcribed. Where the spec's
`containers:` give a reading of both (checker/spec/containers.py: the container's bits from
published code, the row's packing with its standing), the output is predicted from them (a dump
settles the readings); elsewhere `predictable` is False and `unpredictable` says why.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from checker.catalogue import movement_row, movement_supports, target_parts, version_key
from checker.formula.evaluate import cells
from checker.spec.reading import materialize

IMAGE_BYTES = 1024  # one warp's shared buffer: 64 row slots of 16 bytes
ROW_BYTES = 16  # every tile row of these forms: 8 .b16 or 16 .b8 elements
SLOTS = IMAGE_BYTES // ROW_BYTES
PTX_VERSION = "8.7"  # the mma probe's; raised where the form or the target needs a later one
# the first PTX ISA version whose `.target` names these (CUDA 13.0's ptxas refuses them earlier;
# tests/unit/test_movement_probe.py assembles every kernel at the version chosen)
TARGET_PTX = {103: "8.8", 110: "9.0", 121: "8.8"}
FAMILY_PTX = "8.8"
UNPACKED = ("Optional Decompression", "the packing of 6-bit and 4-bit source data in memory (the document's "
            "Optional Decompression section) is not transcribed and the spec's containers: give no reading "
            "of it, so no output is predicted")


@dataclass(frozen=True)
class Form:
    spec_path: str
    instruction: str  # as the spec's `forms:` spells it
    family: str  # ldmatrix, stmatrix, movmatrix
    layout: object  # the Fragment of the tile (movmatrix: d's)
    source: object | None  # movmatrix: a's Fragment
    support: dict  # the catalogue row
    elem_bits: int  # 16 (.b16) or 8 (.b8 and the 8-bit containers)
    per_register: int
    count: int  # 32-bit registers per lane
    rows: np.ndarray  # (32, n): tile row of element i of each lane
    cols: np.ndarray
    container: object = None  # .b8x16 forms: the spec's reading (checker.spec.containers.Load), or None

    def __repr__(self) -> str:  # one line: the generated one prints the position arrays
        return f"Form({self.instruction!r}: layout {self.layout.id} of {self.spec_path})"

    @property
    def n(self) -> int:
        return self.rows.shape[1]

    @property
    def source_positions(self) -> tuple:
        """movmatrix: (rows, cols) of a's reading."""
        return positions(self.source)

    @property
    def tile_rows(self) -> int:
        return self.layout.rows

    @property
    def packed(self) -> bool:
        """A .b8x16.<format> form: 4-bit or 6-bit values in memory, 8-bit containers in registers."""
        return "b8x16." in self.instruction

    @property
    def predictable(self) -> bool:
        return not self.packed or (self.container is not None and self.container.memory is not None)

    @property
    def unpredictable(self) -> str | None:
        return None if self.predictable else UNPACKED[1]

    @property
    def name(self) -> str:
        return self.instruction.replace(".sync.aligned", "").replace(".shared", "")

    @property
    def kernel(self) -> str:
        return "probe_" + self.name.replace(".", "_")

    def supports(self, target: str) -> tuple:
        return movement_supports(self.support, target)

    def version(self, target: str) -> str:
        """The PTX ISA version of the kernel for `target`."""
        ok, need = self.supports(target)
        sm, suffix = target_parts(target)
        found = [PTX_VERSION, need if ok else PTX_VERSION, TARGET_PTX.get(sm, "0.0")]
        if suffix == "f":
            found.append(FAMILY_PTX)
        return max(found, key=version_key)

    def minimum_target(self) -> str:
        """The first target the support row names (architecture-specific where it names no sm_XY)."""
        return self.support["target"] or self.support["arch"][0]


def positions(fragment) -> tuple:
    """(rows, cols), each (32, n): the tile cell of element i of every lane, by the spec's reading."""
    reading = materialize(fragment)
    n = reading.n
    rows, cols = cells(reading.layout, [(lane, i) for lane in range(32) for i in range(n)])
    return np.array(rows, dtype=np.int64).reshape(32, n), np.array(cols, dtype=np.int64).reshape(32, n)


def _bits(fragment) -> tuple:
    row = fragment.table[0]
    return {"b16": 16, "b8": 8}[row.types[0]], row.per_register or 1, row.count


def forms_of(path: str, spec) -> list:
    """Every form the spec's layouts name; each checked against the support table."""
    if spec.family not in ("ldmatrix", "stmatrix", "movmatrix"):
        return []
    out = []
    if spec.family == "movmatrix":
        a, d = spec.fragment("a"), spec.fragment("d")
        for instr in d.forms:
            rows, cols = positions(d)
            out.append(Form(path, instr, spec.family, d, a, _row(instr, d), *_bits(d), rows, cols))
        return out
    loads = spec.containers.loads if spec.containers is not None else {}
    for f in spec.fragments():
        rows, cols = positions(f)
        for instr in f.forms:
            fmt = instr.rsplit(".", 1)[1] if "b8x16." in instr else None
            out.append(Form(path, instr, spec.family, f, None, _row(instr, f), *_bits(f), rows, cols, loads.get(fmt)))
    return out


def _row(instruction: str, fragment) -> dict:
    from checker.errors import SourceSpan, SpecError

    row = movement_row(instruction)
    if row is None:
        raise SpecError(fragment.span if isinstance(fragment.span, SourceSpan) else SourceSpan("?", 1, 1),
                        f"{instruction} is not a form the PTX ISA defines (checker/report/isa-movement.yaml)")
    return row


def chain_spec_path(path: str) -> str | None:
    """The m16n8k16 spec beside an ldmatrix.m8n8 spec, whose A, B and D the chained kernel uses."""
    if os.path.basename(path) != "ldmatrix.m8n8.yaml":
        return None
    other = os.path.join(os.path.dirname(path), "m16n8k16.yaml")
    return other if os.path.exists(other) else None
