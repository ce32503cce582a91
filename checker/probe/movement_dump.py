"""Dumps of the ldmatrix / stmatrix / movmatrix probe (and of the chained kernel), format version 1.

One gzip-compressed JSON object per form: `source` (hardware, or synthetic when the reference
model wrote the outputs), the device, the instruction, the spec and its sha256, the kernel (name,
target, PTX version and hash, assembler, SASS opcodes), the seed, the pattern blocks, and the
arrays the kernel read and wrote, each {dtype: u8 | u32, shape, data: base64 little-endian}:

  ldmatrix   image [warps, 1024], addresses [warps, 32], registers_out [warps, 32, registers]
  stmatrix   image, addresses, registers_in [warps, 32, registers], image_out [warps, 1024]
  movmatrix  registers_in [warps, 32, 1], registers_out [warps, 32, 1]
  chain      image, addresses_a, addresses_b, c_in [warps, 32, 4], d_out [warps, 32, 4],
             fragments_out [warps, 32, 6]

Deterministic (sorted keys, no timestamps, gzip without name or time); read bounded and checked
against checker/probe/movement-dump.schema.json (every field's type and range, the block kinds the
crosscheck reads back, the instruction and the arrays of the dump's family), then each array
against the blocks: a malformed dump is a SpecError naming the file and the field.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from checker.probe.dump import bad, decode_array, encode_array, read_json_gz, schema_errors, write_json_gz
from checker.spec.validation import validator

FORMAT = "ptx-fragment-checker/movement-dump"
VERSION = 1
SUFFIX = ".movement.json.gz"
MAX_COMPRESSED = 4 << 20
MAX_EXPANDED = 32 << 20
MAX_WARPS = 256
SYNTHETIC_NOTE = ("SYNTHETIC: the outputs were computed by checker's reference model from the spec, not by a GPU. "
                  "It tests the crosscheck path only and says nothing about what hardware does.")
SCHEMA = "movement-dump.schema.json"


@dataclass
class Dump:
    path: str
    header: dict
    arrays: dict  # name -> numpy array

    @property
    def synthetic(self) -> bool:
        return self.header["source"] == "synthetic"

    @property
    def warps(self) -> int:
        return sum(b["count"] for b in self.header["blocks"])


def file_name(name: str) -> str:
    return name + SUFFIX


def write(path: str, header: dict, arrays: dict) -> None:
    doc = dict(header, format=FORMAT, version=VERSION,
               arrays={k: encode_array(np.asarray(v)) for k, v in arrays.items()})
    validator(SCHEMA, "checker.probe").validate(doc)
    write_json_gz(path, doc)


def read(path: str) -> Dump:
    """A dump, or a SpecError saying what is wrong with the file."""
    doc = read_json_gz(path, MAX_COMPRESSED, MAX_EXPANDED)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise bad(path, f"not a movement probe dump (expected \"format\": \"{FORMAT}\")")
    if doc.get("version") != VERSION:
        raise bad(path, f"dump format version {doc.get('version')!r}; this checker reads version {VERSION}")
    schema_errors(path, doc, SCHEMA)
    warps = sum(b["count"] for b in doc["blocks"])
    if warps > MAX_WARPS:
        raise bad(path, f"at blocks: {warps} warps; 1 to {MAX_WARPS} expected")
    arrays = {name: decode_array(path, name, enc) for name, enc in doc["arrays"].items()}
    for name, a in arrays.items():
        if a.shape[0] != warps:
            raise bad(path, f"at arrays.{name}: {a.shape[0]} warps, but the blocks have {warps}")
    return Dump(path, {k: v for k, v in doc.items() if k != "arrays"}, arrays)


def find(paths) -> list:
    """Every movement dump under the given folders, and the given files that are ones, sorted."""
    from checker.files import under

    return [p for p in under(paths, (SUFFIX,)) if p.endswith(SUFFIX)]
