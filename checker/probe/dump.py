"""Probe dumps, format version 1 (checker/probe/dump.schema.json describes every field).

One gzip-compressed JSON object per variant: where it came from (`source`: hardware, or
synthetic when the reference model computed D; a synthetic dump says nothing about hardware),
the device, the exact instruction, the spec file and its hash, the kernel (PTX hash, SASS
opcode counts), the seed and the pattern blocks (checker.probe.patterns), and the register
images of A, B, C and D: (warps, 32 lanes, registers) little-endian words, base64.

Deterministic: keys sorted, no timestamps, gzip header without name or time, so the same probe
writes the same bytes. Reading is bounded (compressed and expanded sizes) and schema-checked,
since dumps arrive in pull requests like specs do.
"""
from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import os
from dataclasses import dataclass, field

import numpy as np

from checker.bounded import SHOWN, shown
from checker.errors import SourceSpan, SpecError, UsageError
from checker.outputs import write_bytes
from checker.spec.validation import explained, valid, validator

FORMAT = "ptx-fragment-checker/probe-dump"
VERSION = 1
SUFFIX = ".dump.json.gz"
# The largest dump the probe writes is m16n8k256's .b1 one: 10,500 warps, 24 MiB of JSON, 460 KB
# gzipped (reports/synthetic/); a hardware dump has the same arrays. 64 MiB leaves 2.6x of room.
MAX_COMPRESSED = 16 << 20
MAX_EXPANDED = 64 << 20
# Every dump format holds a few dozen JSON values around its base64 arrays (at most 122 commas,
# brackets and braces in any dump in reports/; a note of 2,000 characters and 500 SASS opcodes
# could add about 3,000). Counted on the bytes before parsing, so a small file of a million
# `0,` or `{},` is refused before json builds a million objects and the schema explains each.
MAX_VALUES = 16384
SYNTHETIC_NOTE = ("SYNTHETIC: D was computed by checker's reference model from the spec, not by a GPU. "
                  "It tests the crosscheck path only and says nothing about what hardware does.")


@dataclass
class Dump:
    path: str
    header: dict  # everything but the register data
    registers: dict  # A, B, C, D -> (warps, 32, count) uint64
    bits: dict = field(default_factory=dict)  # A, B, C, D -> the width of a register word in the file: 32 or 64

    @property
    def synthetic(self) -> bool:
        return self.header["source"] == "synthetic"


def file_name(shape: str, variant: str) -> str:
    return f"{shape}.{variant}{SUFFIX}"


def sha256_file(path: str) -> str:
    from checker.bounded import read_regular
    from checker.spec.yamlload import MAX_BYTES

    return hashlib.sha256(read_regular(path, MAX_BYTES, "spec")).hexdigest()


def _encode(regs: np.ndarray, bits: int) -> dict:
    dtype = "<u4" if bits == 32 else "<u8"
    return {"bits": bits, "shape": list(regs.shape), "data": base64.b64encode(regs.astype(dtype).tobytes()).decode()}


def write(path: str, header: dict, registers: dict, bits: dict) -> None:
    doc = dict(header, format=FORMAT, version=VERSION,
               registers={op: _encode(registers[op], bits[op]) for op in "ABCD"})
    validator("dump.schema.json", "checker.probe").validate(doc)
    write_json_gz(path, doc)


def write_json_gz(path: str, doc: dict) -> None:
    """`doc` as deterministic gzip-compressed JSON (keys sorted, no name or time in the header), so
    the same probe writes the same bytes: every dump format of the probe is written so."""
    raw = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(raw)
    folder = os.path.dirname(path) or "."
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:  # --out is checked first (checker/outputs.py); what the system refuses even so
        raise UsageError(f"--out {folder}: cannot write {path} ({(exc.strerror or str(exc)).lower()})") from None
    # never through a link nor waiting on a FIFO: the output folders are in the checkout, whose files
    # a pull request writes (a dump's name may be a link planted to a file outside, or a FIFO)
    write_bytes(path, buf.getvalue(), "--out", follow_links=False)


def bad(path: str, message: str) -> SpecError:
    """What is wrong with a dump file, located at the file (a dump has no lines worth naming)."""
    return SpecError(SourceSpan(path, 1, 1), message)


# The array codec of the movement and wgmma dumps: {dtype: u8 | u32, shape, data: base64 little-endian}
ARRAY_DTYPES = {"u8": "<u1", "u32": "<u4"}


def encode_array(a: np.ndarray) -> dict:
    dtype = "u8" if a.dtype == np.uint8 else "u32"
    return {"dtype": dtype, "shape": list(a.shape),
            "data": base64.b64encode(a.astype(ARRAY_DTYPES[dtype]).tobytes()).decode()}


def decode_array(path: str, name: str, enc) -> np.ndarray:
    """One array of a dump, each field checked (a hostile dump is a located error, not a
    traceback): 1 to 3 sizes of at most 65536, base64 data of exactly the bytes the shape says."""
    where = f"at arrays.{name}"
    # the dtype is looked up in a dict: a list there would raise TypeError (unhashable), so str first
    if not (isinstance(enc, dict) and isinstance(enc.get("dtype"), str) and enc["dtype"] in ARRAY_DTYPES
            and isinstance(enc.get("shape"), list)
            and isinstance(enc.get("data"), str)):
        raise bad(path, f"{where}: expected {{dtype: u8 | u32, shape: [...], data: base64}}")
    shape = enc["shape"]
    if not (1 <= len(shape) <= 3 and all(type(x) is int and 1 <= x <= 1 << 16 for x in shape)):
        raise bad(path, f"{where}.shape: expected 1 to 3 sizes from 1 to 65536, found {str(shape)[:80]}")
    try:
        data = base64.b64decode(enc["data"], validate=True)
    except ValueError:
        raise bad(path, f"{where}.data is not base64") from None
    size = np.dtype(ARRAY_DTYPES[enc["dtype"]]).itemsize
    if len(data) != int(np.prod(shape)) * size:
        raise bad(path, f"{where} holds {len(data)} bytes, not the {shape} of {enc['dtype']} its shape says")
    return np.frombuffer(data, dtype=ARRAY_DTYPES[enc["dtype"]]).reshape(shape).copy()


def read_json_gz(path: str, max_compressed: int, max_expanded: int):
    """The JSON value of a gzip-compressed dump file, or a SpecError located at the file: read from
    a regular file with a bound (never a FIFO or /dev/zero), expanded with a bound (no zip bomb),
    and plain JSON only (NaN and Infinity are not JSON)."""
    from checker.bounded import read_regular

    packed = read_regular(path, max_compressed, "dump")
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(packed), mode="rb") as gz:
            raw = gz.read(max_expanded + 1)
    except (OSError, EOFError) as exc:
        raise bad(path, f"not a gzip file: {exc}") from None
    if len(raw) > max_expanded:
        raise bad(path, f"dump expands to more than {max_expanded >> 20} MiB")
    values = raw.count(b",") + raw.count(b"[") + raw.count(b"{")  # counts in strings too: only ever more
    if values > MAX_VALUES:
        raise bad(path, f"holds more than {MAX_VALUES} JSON values (counted as commas, [ and {{); "
                        f"a probe dump holds a few dozen around its base64 arrays")
    try:
        return json.loads(raw, parse_constant=_not_json, object_pairs_hook=_once)
    except (ValueError, RecursionError) as exc:
        raise bad(path, f"not JSON: {shown(str(exc), 200, quote=False)}") from None


def schema_errors(path: str, doc: dict, schema_name: str) -> None:
    """A SpecError for a dump the schema rejects: jsonschema-rs decides (fast, and it stops at
    maxItems), jsonschema explains with the first of a bounded few errors in path order. Then what
    no schema says, the same for every format: integers written as floats, and the source against
    the device and the note."""
    if valid(doc, schema_name, "checker.probe"):
        _integers(path, doc)
        _provenance(path, doc)
        return
    errors = explained(doc, schema_name, "checker.probe")
    if not errors:  # the two implementations disagree: say so rather than pass the dump
        raise bad(path, "the dump does not match its schema")
    e = min(errors, key=lambda e: [str(p) for p in e.absolute_path])
    where = shown(".".join(str(p) for p in e.absolute_path), quote=False) or "the top"
    raise bad(path, f"at {where}: {_said(e)}")


def _said(e) -> str:
    """jsonschema's words with the values they quote cut by `shown`: the whole message cut to a
    length ended inside a 150,000-character value and never said what was wrong with it."""
    if e.validator == "additionalProperties" and e.validator_value is False and isinstance(e.instance, dict):
        extra = [k for k in e.instance if k not in e.schema.get("properties", {})]
        if extra:
            return (f"Additional properties are not allowed ({', '.join(shown(k) for k in extra[:3])}"
                    f"{', ...' if len(extra) > 3 else ''} {'was' if len(extra) == 1 else 'were'} unexpected)")
    text = e.message.replace(repr(e.instance), shown(e.instance))
    if len(text) <= 4 * SHOWN:
        return text
    return f"fails the schema's {e.validator!r} ({shown(e.validator_value)}); found {shown(e.instance)}"


def _integers(path: str, doc) -> None:
    """JSON Schema's "integer" takes `4.0`, which then reached a slice or range() as a float (a
    traceback). No dump schema takes a number that is not an integer, so in a dump that passed its
    schema every float stands where an integer goes: the first one is the error (as in specs:
    checker/spec/structure.py)."""
    stack = [((), doc)]
    while stack:
        at, value = stack.pop()
        if isinstance(value, float):
            raise bad(path, f"at {'.'.join(map(str, at)) or 'the top'}: expected an integer, found {value!r}")
        if isinstance(value, dict):
            stack.extend((at + (k,), v) for k, v in sorted(value.items(), reverse=True))
        elif isinstance(value, list):
            stack.extend((at + (k,), v) for k, v in reversed(list(enumerate(value))))


def _provenance(path: str, doc: dict) -> None:
    """The source agrees with the device and the note: a synthetic dump whose source alone was
    changed to hardware would count as the hardware agreeing with the spec."""
    name, sm, note = doc["device"]["name"], doc["device"]["sm"], doc["note"]
    from checker.catalogue import target_parts

    try:  # the schema's pattern has no bound on the digits: "sm_" and 5,000 of them is past int()
        target_parts(doc["kernel"]["target"])
    except ValueError:
        raise bad(path, f"at kernel.target: not a target ptxas names, found {shown(doc['kernel']['target'])}") from None
    model = name.startswith("reference model")
    if doc["source"] == "hardware":
        if model:
            raise bad(path, f"at device.name: a hardware dump names the GPU it ran on, not the reference model, "
                            f"found {shown(name)}")
        if sm is None:
            raise bad(path, "at device.sm: a hardware dump gives its GPU's sm, found none")
        if note.startswith("SYNTHETIC"):
            raise bad(path, f"at note: a hardware dump's note is not the synthetic one, found {shown(note)}")
        _runs(path, sm, doc["kernel"])
        return
    if not model:
        raise bad(path, f"at device.name: a synthetic dump names the reference model, found {shown(name)}")
    if sm is not None:
        raise bad(path, f"at device.sm: a synthetic dump ran on no GPU, found sm {sm!r}")
    if not note.startswith("SYNTHETIC: "):
        raise bad(path, f"at note: a synthetic dump carries the synthetic note, found {shown(note)}")


def runs_on(sm: int, target: str, cubin: bool) -> bool:
    """Whether a device of compute capability `sm` runs a kernel built for `target`: PTX (no
    assembler: the driver compiles it) on that sm and every later one, a cubin only on the later
    minors of its major; an architecture-specific target (sm_90a) on that sm only, a family one
    (sm_100f) on the later members of its family."""
    from checker.catalogue import target_parts

    need, suffix = target_parts(target)
    if suffix == "a":
        return sm == need
    if suffix == "f" or cubin:
        return sm // 10 == need // 10 and sm >= need
    return sm >= need


def _runs(path: str, sm: int, kernel: dict) -> None:
    """A hardware dump's device can have run its kernel: an sm_75 GPU cannot run a kernel for sm_90
    (nor an sm_80 one wgmma's sm_90a), so such a dump is not what a device gave, whatever its D says."""
    target, cubin = kernel["target"], kernel["assembler"] is not None
    if not runs_on(sm, target, cubin):
        raise bad(path, f"at device.sm: a device of sm {sm} cannot run the dump's kernel, "
                        f"{'a cubin' if cubin else 'PTX'} built for {target} (kernel.target)")


def _not_json(name: str):
    raise ValueError(f"{name} is not JSON")


def _once(pairs: list) -> dict:
    """An object whose every name is given once: json keeps the last of a repeated name, another
    reader (or a reviewer, or grep) the first, so `"source": "hardware", "source": "synthetic"` was
    one dump to the crosscheck and another to them (specs refuse duplicate keys alike)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"the name {shown(twice)} is given twice in one object")
    return out


def read(path: str) -> Dump:
    """A dump, or a SpecError saying what is wrong with the file."""
    doc = read_json_gz(path, MAX_COMPRESSED, MAX_EXPANDED)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise bad(path, f"not a probe dump (expected \"format\": \"{FORMAT}\")")
    if doc.get("version") != VERSION:
        raise bad(path, f"dump format version {doc.get('version')!r}; this checker reads version {VERSION}")
    schema_errors(path, doc, "dump.schema.json")
    # the instruction is what the crosscheck matches a dump by; shape and variant are what a reader,
    # the report and the file name go by, so they may not name another one
    named = f"mma.sync.aligned.{doc['shape']}.{doc['variant']}"
    if doc["instruction"] != named:
        raise bad(path, f"at instruction: {doc['instruction']}, but the dump's shape and variant name {named}")
    registers, bits = {}, {}
    warps = sum(b["count"] for b in doc["patterns"])
    for op, enc in doc["registers"].items():
        try:
            data = base64.b64decode(enc["data"], validate=True)
        except ValueError:
            raise bad(path, f"registers.{op}.data is not base64") from None
        shape = tuple(enc["shape"])
        if shape[0] != warps or shape[1] != 32:
            raise bad(path, f"registers.{op} has shape {list(shape)}; the patterns need [{warps}, 32, registers]")
        if len(data) != int(np.prod(shape)) * enc["bits"] // 8:
            raise bad(path, f"registers.{op} holds {len(data)} bytes, not the {list(shape)} its shape says")
        registers[op] = np.frombuffer(data, dtype="<u4" if enc["bits"] == 32 else "<u8").reshape(shape).astype(np.uint64)
        bits[op] = enc["bits"]
    header = {k: v for k, v in doc.items() if k != "registers"}
    return Dump(path, header, registers, bits)


def find(paths) -> list:
    """Every dump file under the given folders or files, sorted."""
    from checker.files import under

    return under(paths, (SUFFIX,))
