"""`checker report`: write the coverage report, or say which of its files are stale."""
from __future__ import annotations

import os
import time

from checker.errors import UsageError
from checker.report import site
from checker.results import exit_code


def run(files: list, args, out) -> int:
    dumps = args.dumps or os.path.join(args.out, "hardware")
    t0 = time.perf_counter()
    if args.check:
        timings = site.committed_timings(args.out)
        if timings is None:
            out.write(f"{args.out}: stale: no readable {site.TIMINGS}; run checker report {' '.join(args.paths)} "
                      f"--out {args.out}\n")
            return 1
        outputs, report = site.render(files, args.jobs, dumps, timings)
        problems = site.stale(args.out, outputs)
        for rel, why in problems:
            out.write(f"{os.path.join(args.out, rel)}: stale: {why}\n")
        verdict = (f"{len(problems)} of {len(outputs)} report files stale; regenerate with: checker report "
                   f"{' '.join(args.paths)} --out {args.out}" if problems else
                   f"{args.out}: current ({len(outputs)} files)")
        out.write(f"{verdict} ({time.perf_counter() - t0:.2f} s)\n")
        return max(1 if problems else 0, exit_code(report.results))
    outputs, report = site.render(files, args.jobs, dumps, None)
    try:
        written = site.write(args.out, outputs)
    except OSError as exc:  # checked before rendering (checker/outputs.py); what the system refuses even so
        raise UsageError(f"--out {args.out}: cannot be written ({(exc.strerror or str(exc)).lower()}"
                         + (f": {exc.filename}" if exc.filename else "") + ")") from None
    failing = sum(r.failed() for r in report.results)
    out.write(f"{args.out}: {len(outputs)} files, {len(written)} written or removed; open "
              f"{os.path.join(args.out, 'index.html')}; {failing} failing results "
              f"({time.perf_counter() - t0:.2f} s)\n")
    return exit_code(report.results)
