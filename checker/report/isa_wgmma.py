"""The ISA coverage rows of wgmma: every form of wgmma.mma_async and wgmma.mma_async.sp that the PTX
ISA defines (9.7.15.2's shapes with 9.7.15.3's types, checker/report/isa-wgmma.yaml), one row per
form and operand (A, the register A of 9.7.15.5.1.1; D), against the spec fragments that give it at
each N, whether they are proved, and how many probe kernels cover it (counted by the report command
from the probe's kernel list, keyed ("wgmma-kernels", K, A type, D type, N): the report does not
import the probe). A sparse form's D is the dense D its spec's `same_as` names; a form no spec
gives yet says so."""
from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files

from checker.catalogue import WGMMA_MIXED_INT_PTX as MIXED, WGMMA_PTX as PTX, WGMMA_TARGET as TARGET
from checker.report import doc
from checker.report.doc import Heading, Para, Table
from checker.report.gather import slug


def support() -> tuple:
    import yaml

    return tuple(yaml.safe_load(files("checker.report").joinpath("isa-wgmma.yaml").read_text(encoding="utf-8")))


def ns(entry: dict) -> list:
    return [n for r in entry["ns"] for n in range(r["from"], r["to"] + 1, r["step"])]


def ns_text(values: list) -> str:
    """8..256 step 8, or 8..32 step 8, 48..256 step 16."""
    runs, start = [], 0
    for j in range(1, len(values) + 1):
        if j == len(values) or (j - start > 1 and values[j] - values[j - 1] != values[start + 1] - values[start]):
            part = values[start:j]
            runs.append(str(part[0]) if len(part) == 1 else f"{part[0]}..{part[-1]} step {part[1] - part[0]}")
            start = j
        elif j - start == 1:
            continue
    return ", ".join(runs)


@dataclass
class Row:
    instruction: str
    shape: str  # m64nNkK
    ns: list
    operand: str  # A or D
    types: list
    specified: dict  # type -> [(page, fragment id, its first instance)]; the instances are counted in `covered`
    covered: dict  # type -> number of the form's N that a spec fragment gives
    proved: dict  # type -> number of those whose fragment proves every property
    kernels: int  # probe kernels (both A sources) of this form and operand's types
    ptx: str


def _same_as(spec_views, k: int) -> set:
    """The dense fragments ("shape/id") a sparse wgmma spec of K says its D is the same as
    (9.7.15.6.2: "Matrix fragments for accumulator D are the same as in case of ... for the same
    .dtype format")."""
    return {ref for v in spec_views if v.spec is not None and v.spec.family == "wgmma.sp" and v.spec.k == k
            for sec in v.spec.sections for same in sec.same_as if "D" in same.operands for ref in same.fragments}


def ptx_of(entry: dict) -> str:
    """The PTX version a row's forms need: the instruction's, and where A and B may differ in sign
    (the integer rows), the later one the mixed forms need."""
    ptx = PTX[entry["sparse"]]
    if {"u8", "s8"} <= set(entry.get("btypes", ())) and {"u8", "s8"} <= set(entry["atypes"]):
        ptx += f"; .u8.s8, .s8.u8: {MIXED}"
    return ptx


def rows(spec_views, hardware: dict) -> list:
    views = [(v, fv) for v in spec_views if v.spec is not None and getattr(v.spec, "family", None) in ("wgmma", "wgmma.sp")
             for fv in v.fragments]
    out = []
    for entry in support():
        sparse, k, want = entry["sparse"], entry["k"], ns(entry)
        instruction = "wgmma.mma_async.sp" if sparse else "wgmma.mma_async"
        dense_d = _same_as(spec_views, k) if sparse else None
        for operand, types in (("A", entry["atypes"]), ("D", entry["dtypes"])):
            specified, covered, proved = {}, {}, {}
            for t in types:
                def gives(v, fv):
                    if operand == "D" and sparse:  # the dense D the sparse spec names
                        return (f"{v.spec.shape}/{fv.fragment.id.split('[', 1)[0]}" in dense_d
                                and v.spec.family == "wgmma")
                    return (v.spec.k == k and (v.spec.family == "wgmma.sp") == sparse
                            and (fv.fragment.sparsity is not None) == sparse)

                hits = [(v, fv) for v, fv in views if fv.fragment.operand == operand and gives(v, fv)
                        and t in fv.fragment.types_here()
                        and (operand == "A" or dict(fv.fragment.params).get("N") in want)]
                if not hits:
                    continue
                # one link per fragment, to its first instance (D.float[N=8]: anchor dfloatn8)
                first: dict = {}
                for v, fv in hits:
                    first.setdefault((slug(v.path), fv.fragment.id.split("[", 1)[0]), fv.fragment.id)
                specified[t] = [(page, base, fid) for (page, base), fid in first.items()]
                if operand == "A":  # one fragment for every N
                    covered[t], proved[t] = len(want), len(want) * all(fv.passed for _, fv in hits)
                else:
                    covered[t], proved[t] = len(hits), sum(bool(fv.passed) for _, fv in hits)
            tag = "wgmma-sp-kernels" if sparse else "wgmma-kernels"
            kernels = sum(c for key, c in hardware.items() if len(key) == 5 and key[0] == tag
                          and key[1] == k and key[2] in entry["atypes"] and key[3] in entry["dtypes"]
                          and key[4] in want and key[2 if operand == "A" else 3] in types)
            out.append(Row(instruction, f"m64nNk{k}", want, operand, list(types), specified, covered, proved,
                           kernels, ptx_of(entry)))
    return out


def blocks(wgmma_rows: list) -> list:
    if not wgmma_rows:
        return []

    def specified(r):
        if not r.specified:
            return "no spec yet" if r.instruction.endswith(".sp") else "—"
        return ", ".join(f"{t}: " + " ".join(f"[{base}](@{page}#{doc.anchor(fid)})" for page, base, fid in ids)
                         for t, ids in r.specified.items())

    def per_type(d):
        return ", ".join(f"{t} {d.get(t, 0)}/{len(r.ns)}" for t in r.types)

    table = []
    for r in wgmma_rows:
        table.append([f"`{r.instruction}`", r.shape, ns_text(r.ns), r.operand, ", ".join(f".{t}" for t in r.types),
                      specified(r), per_type(r.covered), per_type(r.proved) if r.specified else "—",
                      str(r.kernels), r.ptx, TARGET])
    forms = [(r, t, n) for r in wgmma_rows for t in r.types for n in r.ns]
    # a row 9.2 prints with other shapes than the forms read from 9.1 (checker/report/isa-wgmma.yaml)
    against = [d for entry in support() for d in entry.get("differences", ()) if not d["agrees"]]
    # the row's own code marks taken off: a code span inside the report's would not close where it should
    versions = [Para(f"PTX ISA {d['version']} prints the row otherwise, at `{d['at']}`: "
                     f"\"{d['printed'].replace('`', '')}\". "
                     f"{d['note']}") for d in against]
    return [
        Heading(2, "wgmma (warpgroup mma)", "wgmma"),
        Para("Every form of `wgmma.mma_async` and `wgmma.mma_async.sp` that the PTX ISA 9.1 defines: the shapes of "
             "9.7.15.2 with the types of 9.7.15.3 (kept with the sentences they are read from in "
             "`checker/report/isa-wgmma.yaml`), for the register A (9.7.15.5.1.1; A may also come from shared "
             "memory, which has no register fragment) and the accumulator D. **specified**: the spec fragments "
             "that give it; **N given**: of the form's N, how many a fragment gives for that type; **N proved**: "
             "how many of those prove every property (an A fragment is one map for every N); **probe kernels**: "
             "the kernels `checker probe --compile-only --arch sm_90a` builds and assembles for the form (A from "
             "registers and from shared memory, every B type the syntax allows; see docs/probe.md). For the sparse "
             "forms, A is the compressed register A of 9.7.15.6.2 and D the dense D its spec says it is the same "
             "as; the probe's sparse kernels are built at the smallest and the largest N (the sparse part, A and "
             "its metadata, is the same at every N; D is probed at every N by the dense kernels)."),
        *versions,
        Para("The integer rows follow the instruction: its syntax gives `.atype` and `.btype` each of `.s8` and "
             "`.u8`, its PTX ISA Notes say \"Support for .u8.s8 and .s8.u8 as .atype.btype introduced in PTX ISA "
             f"version {MIXED}\" and its examples multiply `.s8` by `.u8`, where the data-type table of 9.7.15.3 "
             "still says \"both .u8 or both .s8\" (9.1 and 9.2 alike): the table says less than the instruction "
             "allows since that version."),
        Table(["forms (shape, N, operand, type)", "count"],
              [["defined by the document", str(len(forms))],
               ["specified", str(sum(r.covered.get(t, 0) for r in wgmma_rows for t in r.types))],
               ["proved", str(sum(r.proved.get(t, 0) for r in wgmma_rows for t in r.types))],
               ["sparse, no spec yet", str(sum(len(r.ns) for r in wgmma_rows for t in r.types
                                               if r.instruction.endswith(".sp") and not r.specified.get(t)))]], "lr"),
        Table(["instruction", "shape", "N", "operand", "types", "specified", "N given", "N proved", "probe kernels",
               "PTX", "target"], table, "llllllllrll"),
    ]
