"""`checker report`: write the coverage report, or (--check) say which of its files are stale. This
command proves the specs and counts the hardware dumps that agree with them; checker/report/
renders what it found."""
from __future__ import annotations

import os
import time

from checker.commands.common import add_jobs, add_specs, check_outputs, command, gate, positive_jobs, spec_files
from checker.errors import UsageError
from checker.report.folder import TIMINGS, committed_timings, stale, with_manifest, write

NAME = "report"


def add(sub) -> None:
    rp = command(sub, NAME, "write the coverage report (HTML, Markdown, SVG); --check: is it current?",
                 "Prove the specs and write the coverage report into --out: index.html with one HTML page per "
                 "spec (each fragment an anchor), the same pages as Markdown, SVG figures redrawn from the "
                 "formulas, errata.md and the ISA coverage table. --check writes nothing and fails when the "
                 "committed report differs from what it would write.",
                 ["checker report specs/                       # writes reports/",
                  "checker report specs/ --check               # is reports/ current?",
                  "checker report specs/ --out /tmp/report && xdg-open /tmp/report/index.html"])
    add_specs(rp)
    rp.add_argument("--out", default="reports", metavar="DIR", help="the report folder (default: reports)")
    rp.add_argument("--check", action="store_true",
                    help="write nothing; fail when a file of the report in --out is missing, differs or is left over")
    rp.add_argument("--dumps", metavar="DIR", help="hardware dumps to count as confirmation (default: OUT/hardware)")
    add_jobs(rp)


def run(args, out, err) -> int:
    from checker.results import exit_code
    from checker.verbatim import complete

    positive_jobs(args)
    if not args.check:
        check_outputs(args)
    files = spec_files(args.paths)
    # before anything is written or compared: a page is never drawn from a spec validate refuses
    gate(files)
    untranscribed = [g for path in complete.lists(args.paths, files)[0] for g in complete.groups(path)]
    if args.dumps is not None and not os.path.isdir(args.dumps):
        # as crosscheck and mutate say it: a misspelt --dumps counted "0 confirmed on hardware" in silence
        raise UsageError(f"--dumps {args.dumps}: " + ("not a folder" if os.path.exists(args.dumps) else
                                                      "no such file or folder"))
    dumps = args.dumps or os.path.join(args.out, "hardware")
    t0 = time.perf_counter()
    if args.check:
        timings = committed_timings(args.out)
        if timings is None:
            out.write(f"{args.out}: stale: no readable {TIMINGS}; run checker report {' '.join(args.paths)} "
                      f"--out {args.out}\n")
            return 1
        outputs, report = render(files, args.jobs, dumps, timings, untranscribed)
        problems = stale(args.out, outputs)
        for rel, why in problems:
            out.write(f"{os.path.join(args.out, rel)}: stale: {why}\n")
        extra = sum(rel not in outputs for rel, _ in problems)  # left over: not among the files it writes
        counted = f"{len(problems) - extra} of {len(outputs)} report files stale" + (
            f", {extra} left over" if extra else "")
        verdict = (f"{counted}; regenerate with: checker report {' '.join(args.paths)} --out {args.out}" if problems
                   else f"{args.out}: current ({len(outputs)} files)")
        out.write(f"{verdict}{_failing(report.results, err)} ({time.perf_counter() - t0:.2f} s)\n")
        return max(1 if problems else 0, exit_code(report.results))
    outputs, report = render(files, args.jobs, dumps, None, untranscribed)
    try:
        written = write(args.out, outputs)
    except OSError as exc:  # checked before rendering (checker/outputs.py); what the system refuses even so
        raise UsageError(f"--out {args.out}: cannot be written ({(exc.strerror or str(exc)).lower()}"
                         + (f": {exc.filename}" if exc.filename else "") + ")") from None
    out.write(f"{args.out}: {len(outputs)} files, {len(written)} written or removed; open "
              f"{os.path.join(args.out, 'index.html')}{_failing(report.results, err) or '; 0 failing results'} "
              f"({time.perf_counter() - t0:.2f} s)\n")
    return exit_code(report.results)


def _failing(results, err) -> str:
    """What failed, located as `prove` says it, on stderr; and a clause for the summary line ("" when
    nothing failed): the pages show the failures, but a log that said only "current" or "3 failing
    results" named none of them."""
    from checker.report.text import failures

    bad = sum(r.failed() for r in results)
    if not bad:
        return ""
    err.write(failures(results))
    return f"; {bad} failing results (said above, located; the report shows them too)"


def render(files: list, jobs: int, dumps: str | None, timings: dict | None, untranscribed: list = ()):
    """-> (the report's files {relative path: text}, what was gathered). timings None: measure them now.
    `untranscribed`: the entries of the untranscribed lists the paths hold (checker/verbatim/complete.py)."""
    from checker.options import Options
    from checker.probe.agreement import hardware_agreement
    from checker.prover import prove_paths
    from checker.report import site
    from checker.report.gather import gather, key

    hardware, agreeing = hardware_agreement(files, dumps)
    hardware.update(_wgmma_kernels(files))
    t0 = time.perf_counter()
    report = gather(files, prove_paths(files, Options(cross_check=True, jobs=jobs)), hardware, agreeing)
    report.untranscribed = untranscribed
    if timings is None:
        timings = {key(r): round(r.seconds, 6) for r in report.results}
        timings["total"] = round(time.perf_counter() - t0, 4)
    return with_manifest(site.render(report, timings, _references(files, report, jobs))), report


def _wgmma_kernels(files: list) -> dict:
    """The probe's wgmma kernels of the specs given (checker/probe/wgmma_ptx.py, and wgmma_sp.py for
    the sparse ones), counted per ("wgmma-kernels", K, A type, D type, N) and, for the sparse ones,
    ("wgmma-sp-kernels", ...) for the ISA coverage rows (checker/report/isa_wgmma.py)."""
    from checker.probe import wgmma_ptx, wgmma_sp
    from checker.spec.load import load_spec
    from checker.errors import SpecError

    out: dict = {}
    for path in files:
        try:
            spec = load_spec(path)
        except (SpecError, OSError):
            continue  # the report shows why it does not load
        family = getattr(spec, "family", None)
        if family not in ("wgmma", "wgmma.sp"):
            continue
        try:
            found = wgmma_ptx.variants(spec, path) if family == "wgmma" else wgmma_sp.variants(spec, path)
        except (SpecError, OSError):
            continue  # a sparse spec whose dense D is missing: no kernels to count
        tag = "wgmma-kernels" if family == "wgmma" else "wgmma-sp-kernels"
        for v in found:
            key = (tag, v.k, v.atype, v.dtype, v.n)
            out[key] = out.get(key, 0) + 1
    return out


def _references(files: list, report, jobs: int):
    """The conformance verdicts of the shipped reference data, and the errata's agreements."""
    from checker.references import conformance
    from checker.references.errata import agreement

    specs = [(v.path, v.spec) for v in report.specs if v.spec]
    return conformance.run(files, jobs=jobs), agreement(specs, files)
