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
field by field: a malformed dump is a SpecError naming the file and the field.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass

import numpy as np

from checker.errors import SourceSpan, SpecError
from checker.probe.dump import read_json_gz, write_json_gz

FORMAT = "ptx-fragment-checker/movement-dump"
VERSION = 1
SUFFIX = ".movement.json.gz"
MAX_COMPRESSED = 4 << 20
MAX_EXPANDED = 32 << 20
MAX_WARPS = 256
SYNTHETIC_NOTE = ("SYNTHETIC: the outputs were computed by checker's reference model from the spec, not by a GPU. "
                  "It tests the crosscheck path only and says nothing about what hardware does.")
DTYPES = {"u8": "<u1", "u32": "<u4"}
FAMILIES = ("ldmatrix", "stmatrix", "movmatrix", "chain")
_HEADER = {"source": str, "device": dict, "instruction": str, "family": str, "spec": str, "spec_sha256": str,
           "kernel": dict, "seed": int, "blocks": list, "note": str}


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


def _encode(a: np.ndarray) -> dict:
    dtype = "u8" if a.dtype == np.uint8 else "u32"
    return {"dtype": dtype, "shape": list(a.shape), "data": base64.b64encode(a.astype(DTYPES[dtype]).tobytes()).decode()}


def write(path: str, header: dict, arrays: dict) -> None:
    write_json_gz(path, dict(header, format=FORMAT, version=VERSION,
                             arrays={k: _encode(np.asarray(v)) for k, v in arrays.items()}))


def _bad(path: str, message: str) -> SpecError:
    return SpecError(SourceSpan(path, 1, 1), message)


def read(path: str) -> Dump:
    """A dump, or a SpecError saying what is wrong with the file."""
    doc = read_json_gz(path, MAX_COMPRESSED, MAX_EXPANDED)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise _bad(path, f"not a movement probe dump (expected \"format\": \"{FORMAT}\")")
    if doc.get("version") != VERSION:
        raise _bad(path, f"dump format version {doc.get('version')!r}; this checker reads version {VERSION}")
    for key, kind in _HEADER.items():
        if type(doc.get(key)) is not kind:
            raise _bad(path, f"at {key}: expected a {kind.__name__}, found {type(doc.get(key)).__name__}")
    if doc["source"] not in ("hardware", "synthetic") or doc["family"] not in FAMILIES:
        raise _bad(path, "at source / family: expected hardware or synthetic, and one of " + ", ".join(FAMILIES))
    _blocks(path, doc["blocks"])
    if not isinstance(doc.get("arrays"), dict):
        raise _bad(path, "at arrays: expected an object")
    arrays = {name: _decode(path, name, enc) for name, enc in doc["arrays"].items()}
    warps = sum(b["count"] for b in doc["blocks"])
    for name, a in arrays.items():
        if a.shape[0] != warps:
            raise _bad(path, f"at arrays.{name}: {a.shape[0]} warps, but the blocks have {warps}")
    return Dump(path, {k: v for k, v in doc.items() if k != "arrays"}, arrays)


def _blocks(path: str, blocks: list) -> None:
    total = 0
    for k, b in enumerate(blocks):
        if not (isinstance(b, dict) and isinstance(b.get("kind"), str) and type(b.get("count")) is int
                and 1 <= b["count"] <= MAX_WARPS):
            raise _bad(path, f"at blocks.{k}: expected {{kind: text, count: 1..{MAX_WARPS}}}")
        total += b["count"]
    if not 1 <= total <= MAX_WARPS:
        raise _bad(path, f"at blocks: {total} warps; 1 to {MAX_WARPS} expected")


def _decode(path: str, name: str, enc) -> np.ndarray:
    where = f"at arrays.{name}"
    if not (isinstance(enc, dict) and enc.get("dtype") in DTYPES and isinstance(enc.get("shape"), list)
            and isinstance(enc.get("data"), str)):
        raise _bad(path, f"{where}: expected {{dtype: u8 | u32, shape: [...], data: base64}}")
    shape = enc["shape"]
    if not (1 <= len(shape) <= 3 and all(type(x) is int and 1 <= x <= 1 << 16 for x in shape)):
        raise _bad(path, f"{where}.shape: expected 1 to 3 sizes from 1 to 65536, found {str(shape)[:80]}")
    try:
        data = base64.b64decode(enc["data"], validate=True)
    except ValueError:
        raise _bad(path, f"{where}.data is not base64") from None
    size = np.dtype(DTYPES[enc["dtype"]]).itemsize
    if len(data) != int(np.prod(shape)) * size:
        raise _bad(path, f"{where} holds {len(data)} bytes, not the {shape} of {enc['dtype']} its shape says")
    return np.frombuffer(data, dtype=DTYPES[enc["dtype"]]).reshape(shape).copy()


def find(paths) -> list:
    """Every movement dump under the given folders, and the given files that are ones, sorted."""
    from checker.files import under

    return [p for p in under(paths, (SUFFIX,)) if p.endswith(SUFFIX)]
