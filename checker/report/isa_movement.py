"""The ISA coverage rows of ldmatrix, stmatrix and movmatrix: every form the PTX ISA defines (the
support rows of checker/catalogue.py, from the sections' syntax, tables and target notes) against
the spec layouts that give it, whether they are proved, and the hardware dumps that agree
(counted by checker/probe/movement_report.py, keyed ("movement", form name))."""
from __future__ import annotations

from dataclasses import dataclass

from checker.catalogue import movement_forms, movement_support
from checker.report import doc
from checker.report.doc import Heading, Para, Table
from checker.report.gather import slug


@dataclass
class Row:
    instruction: str
    shape: str
    form: str
    specified: list  # (page, fragment id)
    proved: bool | None
    hardware: int
    ptx: str
    target: str


def target_text(entry: dict) -> str:
    if entry["target"]:
        return entry["target"]
    return f"{', '.join(entry['arch'])}; {', '.join(entry['family'])} and later (PTX {entry['family_ptx']})"


def rows(spec_views, hardware: dict) -> list:
    views = [(v, fv) for v in spec_views if v.spec is not None for fv in v.fragments]
    out = []
    for entry in movement_support():
        for form in movement_forms(entry):
            found = [(v, fv) for v, fv in views if form in fv.fragment.forms]
            name = form.replace(".sync.aligned", "").replace(".shared", "")
            out.append(Row(entry["instruction"], entry["shape"], form, [(slug(v.path), fv.fragment.id) for v, fv in found],
                           all(fv.passed for _, fv in found) if found else None,
                           hardware.get(("movement", name), 0), entry["ptx"], target_text(entry)))
    return out


def blocks(movement_rows: list) -> list:
    if not movement_rows:
        return []
    table = [[f"`{r.instruction}`", r.shape, f"`{r.form}`",
              ", ".join(f"[{fid}](@{page}#{doc.anchor(fid)})" for page, fid in r.specified) or "—",
              {True: "yes", False: "**no**", None: "—"}[r.proved], str(r.hardware), r.ptx, r.target]
             for r in movement_rows]
    return [
        Heading(2, "ldmatrix, stmatrix, movmatrix", "ldmatrix-stmatrix-movmatrix"),
        Para("Every form of `ldmatrix`, `stmatrix` and `movmatrix` that the PTX ISA 9.1 defines (9.7.14.5.15-17: "
             "the syntax, the shape tables and the PTX ISA and Target ISA Notes, kept with the sentences they are "
             "read from in `checker/report/isa-movement.yaml`). **specified**: the spec layouts that name the form; "
             "**proved**: whether they prove every property; **hardware**: hardware dumps of the form "
             "(`checker probe`, `reports/hardware/`) that agree with the spec bit for bit. The `.b6x16_p32` and "
             "`.b4x16_p64` forms are specified (where their 8-bit containers go) but the probe predicts no output "
             "for them: how their source data is packed is not transcribed."),
        Table(["forms", "count"], [["defined by the document", str(len(movement_rows))],
                                   ["specified", str(sum(bool(r.specified) for r in movement_rows))],
                                   ["proved", str(sum(r.proved is True for r in movement_rows))],
                                   ["confirmed on hardware", str(sum(bool(r.hardware) for r in movement_rows))]], "lr"),
        Table(["instruction", "shape", "form", "specified", "proved", "hardware", "PTX", "target"], table, "lllllrll"),
    ]
