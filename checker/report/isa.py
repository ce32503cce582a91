"""The ISA coverage table: every shape x type x operand of mma.sync and mma.sp that the PTX ISA
defines (the support table, checker/catalogue.py) against what the specs give, what is proved,
and what a committed hardware dump confirms (checker/probe/agreement.py counts them)."""
from __future__ import annotations

from dataclasses import dataclass

from checker.catalogue import support

OPERANDS = (("A", "ab"), ("B", "ab"), ("C/D", "cd"))


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
