"""Dumps of the wgmma probe, format version 1 (checker/probe/wgmma-dump.schema.json).

One gzip-compressed JSON object per variant (one N, one A source, one swizzle mode): `source`
(hardware, or synthetic when the reference model wrote d_out), the device (name, sm, driver and
CUDA versions), the instruction and variant, the descriptor's high bits, the spec and its sha256,
the kernel (name, target, PTX version and hash, assembler, SASS opcode counts), the seed, the
pattern blocks (checker.probe.wgmma_patterns) and the arrays of the one launch, each {dtype: u8 |
u32, shape, data: base64 little-endian}:

  a        u32 [ctas, 128, 4] (A in registers) or u8 [ctas, A image bytes] (A in shared memory)
  b        u8 [ctas, B image bytes]
  d_in     u32 [ctas, 128, D registers]      scale_d  u32 [ctas]      d_out  u32 [ctas, 128, D registers]

Written and read by checker.probe.dump's gzip-JSON writer and bounded reader; schema-checked, then
every array's shape checked against the blocks, so a hostile dump is a SpecError naming the file
and the field, never a traceback.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from checker.probe.dump import bad, decode_array, encode_array, read_json_gz, schema_errors, write_json_gz

FORMAT = "ptx-fragment-checker/wgmma-dump"
VERSION = 1
SUFFIX = ".wgmma.json.gz"
MAX_COMPRESSED = 8 << 20
MAX_EXPANDED = 48 << 20
MAX_CTAS = 64
SYNTHETIC_NOTE = ("SYNTHETIC: d_out was computed by checker's reference model from the spec, not by a GPU. "
                  "It tests the crosscheck path only and says nothing about what hardware does.")


@dataclass
class Dump:
    path: str
    header: dict
    arrays: dict

    @property
    def synthetic(self) -> bool:
        return self.header["source"] == "synthetic"

    @property
    def ctas(self) -> int:
        return sum(b["count"] for b in self.header["blocks"])


def file_name(variant_id: str) -> str:
    return variant_id + SUFFIX



def write(path: str, header: dict, arrays: dict) -> None:
    from checker.spec.validation import validator

    doc = dict(header, format=FORMAT, version=VERSION, arrays={k: encode_array(np.asarray(v)) for k, v in arrays.items()})
    validator("wgmma-dump.schema.json", "checker.probe").validate(doc)
    write_json_gz(path, doc)



def read(path: str) -> Dump:
    """A dump, or a SpecError saying what is wrong with the file."""
    doc = read_json_gz(path, MAX_COMPRESSED, MAX_EXPANDED)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise bad(path, f"not a wgmma probe dump (expected \"format\": \"{FORMAT}\")")
    if doc.get("version") != VERSION:
        raise bad(path, f"dump format version {doc.get('version')!r}; this checker reads version {VERSION}")
    schema_errors(path, doc, "wgmma-dump.schema.json")
    ctas = sum(b["count"] for b in doc["blocks"])
    if ctas > MAX_CTAS:
        raise bad(path, f"at blocks: {ctas} CTAs; at most {MAX_CTAS}")
    arrays = {name: decode_array(path, name, enc) for name, enc in doc["arrays"].items()}
    for name, a in arrays.items():
        if a.shape[0] != ctas:
            raise bad(path, f"at arrays.{name}: {a.shape[0]} CTAs, but the blocks have {ctas}")
    return Dump(path, {k: v for k, v in doc.items() if k != "arrays"}, arrays)



def find(paths) -> list:
    """Every wgmma dump under the given folders, and the given files that are ones, sorted."""
    from checker.files import under

    return [p for p in under(paths, (SUFFIX,)) if p.endswith(SUFFIX)]
