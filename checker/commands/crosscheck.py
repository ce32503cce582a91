"""`checker crosscheck`: predict every probe dump from the specs and compare, bit for bit."""
from __future__ import annotations

import json
import time

from checker.commands.common import add_format, add_jobs, add_output, add_specs, command, positive_jobs, spec_files
from checker.errors import UsageError

NAME = "crosscheck"


def add(sub) -> None:
    cc = command(sub, NAME, "predict every probe dump from the specs and compare (no GPU)",
                 "Predict every register of every probe dump (`checker probe`) from the specs with the "
                 "reference model and compare bit for bit; a disagreement is located at the formula line. "
                 "Exit codes as `checker prove`.",
                 ["checker crosscheck specs/ --dumps reports/hardware",
                  "checker crosscheck specs/m16n8k16.yaml --dumps reports/synthetic --format json"])
    add_specs(cc)
    cc.add_argument("--dumps", required=True, action="append", metavar="DIR", help="dump files or folders")
    add_format(cc)
    add_output(cc)
    add_jobs(cc)


def run(args, out, err) -> int:
    from checker.probe.crosscheck import crosscheck, render_text
    from checker.probe.dump import find
    from checker.results import exit_code, summary
    from checker.spec.checked import load_checked
    from checker.files import is_relations_file

    from checker.probe import movement_dump
    from checker.probe.movement_run import crosscheck_movement, is_movement

    positive_jobs(args)
    t0 = time.perf_counter()
    specs = [(p, load_checked(p)) for p in spec_files(args.paths) if not is_relations_file(p)]
    from checker.probe import wgmma_dump
    from checker.probe.wgmma_check import crosscheck as crosscheck_wgmma

    moving = movement_dump.find(args.dumps)
    warpgroup = wgmma_dump.find(args.dumps)
    files = [p for p in find(args.dumps) if p not in moving and p not in warpgroup]  # a named file is its kind
    if not files and not moving and not warpgroup:
        raise UsageError(f"no probe dump (*{dumps_suffix()}, *{movement_dump.SUFFIX}, *{wgmma_dump.SUFFIX}) in "
                         f"{' '.join(args.dumps)}: nothing was checked")
    # each summary line gives its own part's time, the specs' loading counted in the first line
    # printed with a time: the whole run's time on two lines read as twice the time spent
    t1 = time.perf_counter()
    results, stats = crosscheck([s for s in specs if not is_movement(s[1])], files, args.jobs) if files else ([], None)
    t2 = time.perf_counter()
    moved, moved_stats = crosscheck_movement(specs, moving) if moving else ([], None)
    t3 = time.perf_counter()
    wg, wg_stats = (crosscheck_wgmma([s for s in specs if s[1].family in ("wgmma", "wgmma.sp")], warpgroup) if warpgroup
                    else ([], None))
    t4 = time.perf_counter()
    if not any(r.subject for r in results + moved + wg) and not any(r.failed() for r in results + moved + wg):
        raise UsageError("no dump is of a variant of these specs: nothing was checked")
    seconds = time.perf_counter() - t0
    if args.format == "json":
        json.dump({"summary": summary(results + moved + wg) | {"seconds": round(seconds, 4)} | (stats or {})
                   | ({"movement": moved_stats} if moved_stats else {}) | ({"wgmma": wg_stats} if wg_stats else {}),
                   "results": [r.as_json() | {"dump": r.detail.get("dump"), "source": r.detail.get("source")}
                               for r in results + moved + wg]}, out, indent=1)
        out.write("\n")
    else:
        from checker.probe.movement_report import render_text as render_movement

        if stats is not None:
            out.write(render_text(results, stats, t2 - t0))
        if moved_stats is not None:
            out.write(render_movement(moved, moved_stats))
        if wg_stats is not None:
            from checker.probe.wgmma_check import render_text as render_wgmma

            out.write(render_wgmma(wg, wg_stats, t4 - t3 + (0 if stats is not None else t1 - t0)))
    return exit_code(results + moved + wg)


def dumps_suffix() -> str:
    from checker.probe.dump import SUFFIX

    return SUFFIX
