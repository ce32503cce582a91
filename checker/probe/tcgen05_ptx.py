"""`checker probe --compile-only` for the tcgen05 specs: one PTX kernel per form of each layout
(tcgen05.ld and tcgen05.st, every .num), assembled by ptxas for the architecture-specific targets
that have Tensor Memory. Nothing is run: no GPU the probe runs on has Tensor Memory, so these
kernels say that each form the specs name is an instruction ptxas takes with the spec's register
count (and `.16x32bx2` with its immediate half offset, .num as the readings take it), not where
its registers land."""
from __future__ import annotations

import os
from dataclasses import dataclass

# the targets with Tensor Memory (PTX ISA 9.2, 9.7.16: sm_100a / sm_100f and their kin) that ptxas
# names; a target the toolkit does not know is skipped by checker.probe.assemble.cannot_target
TARGETS = ("sm_100a", "sm_100f", "sm_101a", "sm_103a", "sm_110a")
PTX_VERSION = "8.7"  # tcgen05 came in PTX ISA 8.6; 8.7 for the f targets' ptxas of CUDA 12.9 and 13


@dataclass(frozen=True)
class Form:
    spec_path: str
    instruction: str
    layout: object  # the spec's Fragment (its span locates a rejection)
    registers: int
    num: int

    @property
    def kernel(self) -> str:
        return "k_" + self.instruction.replace(".", "_")


def is_tcgen05(spec) -> bool:
    return spec.family == "tcgen05"


def forms_of(path: str, spec) -> list:
    return [Form(path, form, f, f.table[0].count, f.matrices) for f in spec.fragments() for form in f.forms]


def generate(form: Form) -> str:
    """The kernel: Tensor Memory allocated by the warp (512 columns, the most a CTA has), the form
    once (a store's registers zero), waited for, the memory given back."""
    regs = "{" + ", ".join(f"%r{k}" for k in range(form.registers)) + "}"
    half = f", {form.num}" if ".16x32bx2." in form.instruction else ""
    load = form.instruction.startswith("tcgen05.ld.")
    op = f"{form.instruction} {regs}, [%taddr]{half};" if load else f"{form.instruction} [%taddr]{half}, {regs};"
    body = [f".version {PTX_VERSION}", "TARGET", ".address_size 64", "",
            f".visible .entry {form.kernel}()", "{", f"  .reg .b32 %r<{form.registers}>;", "  .reg .b32 %taddr;",
            "  .shared .align 4 .b32 slot;",
            "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 512;",
            "  ld.shared.b32 %taddr, [slot];"]
    body += [] if load else [f"  mov.b32 %r{k}, 0;" for k in range(form.registers)]
    body += [f"  {op}", f"  tcgen05.wait::{'ld' if load else 'st'}.sync.aligned;",
             "  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
             "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %taddr, 512;", "  ret;", "}", ""]
    return "\n".join(body)


def compile_rows(specs: list, wanted: list) -> list:
    """specs: [(path, Spec)]; every form assembled for every wanted target that has Tensor Memory
    (the others skipped, saying so); rows as the other families' parts give them."""
    from concurrent.futures import ThreadPoolExecutor

    from checker.probe.assemble import assemble, cannot_target, ptxas

    tool = ptxas()
    forms = [f for path, spec in specs for f in forms_of(path, spec)]

    def one(job):
        form, target = job
        if target not in TARGETS:
            return "skipped", f"tcgen05 needs a target with Tensor Memory ({', '.join(TARGETS[:2])}, ...)"
        unknown = cannot_target(tool, target)
        if unknown:
            return "skipped", unknown
        text = generate(form).replace("TARGET", f".target {target}", 1)
        good, message, _ = assemble(tool, text, target.removeprefix("sm_"), form.kernel)
        return ("assembled" if good else "rejected"), message

    jobs = [(f, t) for f in forms for t in wanted]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:  # each job is a ptxas
        done = list(pool.map(one, jobs))
    return [{"spec": f.spec_path, "instruction": f.instruction, "arch": t, "result": result, "message": message,
             "location": str(f.layout.span) if result == "rejected" else None, "sass": None}
            for (f, t), (result, message) in zip(jobs, done)]
