"""Which hardware dumps agree with the specs, counted per (shape, operand, type): the evidence the
coverage report's ISA table shows beside what is proved."""
from __future__ import annotations

import os


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

    from checker.probe.movement_dump import SUFFIX as MOVEMENT
    from checker.probe.movement_report import hardware_agreement as movement_agreement

    specs = [(p, load_spec(p)) for p in spec_files if not is_relations_file(p)]
    moved, moved_agreeing = movement_agreement(specs, dump_dir)
    _wgmma_readable(dump_dir)
    paths = [p for p in dumps.find([dump_dir]) if not p.endswith(MOVEMENT)]
    if not paths:
        return moved, moved_agreeing
    results, _ = crosscheck(specs, paths)
    from checker.probe.findings import refuse_malformed

    refuse_malformed(results, dump_dir)
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
    return counts | moved, agreeing + moved_agreeing


def _wgmma_readable(dump_dir: str) -> None:
    """The wgmma dumps of the folder are not counted by the report (its ISA rows count kernels), but
    one that is malformed fails it like any other."""
    from checker.probe import wgmma_dump
    from checker.probe.findings import readable, refuse_malformed

    results: list = []
    for _ in readable(wgmma_dump.find([dump_dir]), wgmma_dump.read, results):
        pass
    refuse_malformed(results, dump_dir)
