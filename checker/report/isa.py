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
    specs = {v.spec.shape: v.spec for v in spec_views if v.spec is not None}
    out = []
    for entry in support():
        instruction = entry["instruction"] + (f".kind::{entry['kind']}" if entry["kind"] else "")
        for shape in entry["shapes"]:
            for operand, field in OPERANDS:
                types = entry[field]
                specified, proved, hw = {}, {}, {}
                for t in types:
                    if entry["instruction"] == "mma.sp":
                        found = _find_sparse(specs.get(shape), fragments, operand, t, entry["ab"])
                    else:
                        found = _find(fragments.get(shape, []), operand, t, entry["layouts"], entry["instruction"])
                    if found:
                        specified[t] = [fv.fragment.id if fv.spec.shape == shape else f"{fv.spec.shape}/{fv.fragment.id}"
                                        for fv in found]
                        proved[t] = all(fv.passed for fv in found)
                    hw[t] = hardware.get((shape, operand, t), 0)
                out.append(Row(instruction, shape, operand, types, entry["layouts"], entry["ptx"],
                               entry["target"], specified, proved, hw, pages.get(shape)))
    return out


def _find(views, operand, type_, layouts, instruction) -> list:
    """The fragments that give this operand and type, one per layout the instruction takes."""
    if instruction != "mma":
        return []
    op = "C" if operand == "C/D" else operand
    found = []
    for layout in (layouts if operand != "C/D" and layouts != ["row.col"] else [None]):
        hit = [fv for fv in views if fv.fragment.operand == op and type_ in fv.fragment.types
               and fv.fragment.sparsity is None and (layout is None or fv.fragment.layout in (layout, None))]
        if not hit:
            return []
        found.extend(hit[:1])
    return found


def _find_sparse(spec, fragments: dict, operand, type_, ab: list) -> list:
    """mma.sp: A is the sparse fragment of the 9.7.14.6.2 section for the row's A/B types; B and
    C/D are the fragments that section's `same_as` sentence names ("... are the same as in case of
    Matrix Fragments for mma.m16n8k16 ..."), where they hold the type. A B the section gives only
    as a figure stays unspecified."""
    sec = next((sec for sec in (spec.sections if spec else ()) for f in sec.fragments
                if f.sparsity is not None and ab[0] in f.types), None)
    if sec is None:
        return []
    op = "C" if operand == "C/D" else operand
    if op == "A":
        return [fv for fv in fragments.get(spec.shape, []) if fv.fragment in sec.fragments
                and fv.fragment.sparsity is not None and type_ in fv.fragment.types]
    for same in (x for x in sec.same_as if op in x.operands):
        for ref in same.fragments:
            shape, fid = ref.split("/", 1)
            hit = [fv for fv in fragments.get(shape, []) if fv.fragment.id == fid and fv.fragment.operand == op
                   and type_ in fv.fragment.types]
            if hit:
                return hit[:1]
    return []


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
