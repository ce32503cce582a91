"""The ISA coverage table: every shape x type x operand of mma.sync and mma.sp that the PTX ISA
defines (isa-support.yaml, from ../shared/ptx-isa/mma-support-table.md) against what the specs
give, what is proved, and what a committed hardware dump confirms."""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from importlib.resources import files

import yaml

OPERANDS = (("A", "ab"), ("B", "ab"), ("C/D", "cd"))


@functools.lru_cache(maxsize=None)
def support() -> tuple:
    """The packaged table; trusted data of this repository, still read with the safe loader. Read
    once per process: the probe asks it for every variant and target."""
    return tuple(yaml.safe_load(files("checker.report").joinpath("isa-support.yaml").read_text(encoding="utf-8")))


@dataclass
class Row:
    instruction: str  # mma, mma.sp, with .kind::... where the table names one
    shape: str
    operand: str
    types: list
    layouts: list
    ptx: str
    target: str
    specified: dict  # type -> [fragment ids], empty where no spec gives it
    proved: dict  # type -> True / False (specified types only)
    hardware: dict  # type -> number of hardware dumps that agree
    spec: str | None  # the spec page that gives the shape


def rows(spec_views, hardware: dict) -> list:
    """spec_views: gather.SpecView list. hardware: (shape, operand, type) -> dumps that agree."""
    fragments = {}
    for v in spec_views:
        for fv in v.fragments:
            fragments.setdefault(v.spec.shape, []).append(fv)
    pages = {v.spec.shape: v.path for v in spec_views if v.spec is not None}
    out = []
    for entry in support():
        instruction = entry["instruction"] + (f".kind::{entry['kind']}" if entry["kind"] else "")
        for shape in entry["shapes"]:
            for operand, field in OPERANDS:
                types = entry[field]
                specified, proved, hw = {}, {}, {}
                for t in types:
                    found = _find(fragments.get(shape, []), operand, t, entry["layouts"], entry["instruction"])
                    if found:
                        specified[t] = [fv.fragment.id for fv in found]
                        proved[t] = all(fv.passed for fv in found)
                    hw[t] = hardware.get((shape, operand, t), 0)
                out.append(Row(instruction, shape, operand, types, entry["layouts"], entry["ptx"],
                               entry["target"], specified, proved, hw, pages.get(shape)))
    return out


def _find(views, operand, type_, layouts, instruction) -> list:
    """The fragments that give this operand and type, one per layout the instruction takes; none
    for mma.sp, whose sparse A differs from the dense one and which no spec gives yet."""
    if instruction != "mma":
        return []
    op = "C" if operand == "C/D" else operand
    found = []
    for layout in (layouts if operand != "C/D" and layouts != ["row.col"] else [None]):
        hit = [fv for fv in views if fv.fragment.operand == op and type_ in fv.fragment.types
               and (layout is None or fv.fragment.layout in (layout, None))]
        if not hit:
            return []
        found.extend(hit[:1])
    return found


def hardware_agreement(spec_files: list, dump_dir: str | None) -> tuple:
    """(shape, operand, type) -> number of hardware dumps under dump_dir whose every check passes;
    and how many dumps agree. Synthetic dumps never count: they are the model, not the GPU."""
    if not dump_dir or not os.path.isdir(dump_dir):
        return {}, 0
    from checker.probe import dump as dumps
    from checker.probe.crosscheck import crosscheck
    from checker.semantics.variants import variants
    from checker.spec.load import load_spec
    from checker.files import is_relations_file

    paths = dumps.find([dump_dir])
    if not paths:
        return {}, 0
    specs = [(p, load_spec(p)) for p in spec_files if not is_relations_file(p)]
    results, _ = crosscheck(specs, paths)
    # the crosscheck names each result's dump, its source and its instruction: no second read
    by_instr = {v.instruction.replace("mma.sync.aligned.", ""): v for _, s in specs for v in variants(s)}
    per_dump: dict = {}
    for r in results:
        if "dump" in r.detail:
            per_dump.setdefault(r.detail["dump"], []).append(r)
    counts: dict = {}
    agreeing = 0
    for rs in per_dump.values():
        v = by_instr.get(rs[0].subject)
        if v is None or rs[0].detail["source"] != "hardware" or any(r.failed() for r in rs):
            continue
        agreeing += 1
        for key in {(v.shape, "A", v.atype), (v.shape, "B", v.btype),
                    (v.shape, "C/D", v.ctype), (v.shape, "C/D", v.dtype)}:
            counts[key] = counts.get(key, 0) + 1
    return counts, agreeing
