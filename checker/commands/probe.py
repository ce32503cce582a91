"""`checker probe`: run every variant's mma on a GPU, or the reference model (--synthetic), and
write a dump per variant; --compile-only is checker/commands/probe_compile.py."""
from __future__ import annotations

import json
import os
import time

from checker.commands.common import check_outputs
from checker.commands.probe_compile import archs, compile_only, variants_of
from checker.errors import CheckerError, UsageError

NAME = "probe"


def add(sub) -> None:
    pb = sub.add_parser(NAME, help="run every variant's mma on a GPU and write dumps; --compile-only, --synthetic")
    pb.add_argument("paths", nargs="+", metavar="PATH")
    pb.add_argument("--out", metavar="DIR", help="where dumps go (default: reports/hardware, or "
                    "reports/synthetic with --synthetic)")
    pb.add_argument("--compile-only", action="store_true", help="assemble every kernel with ptxas; no GPU needed")
    pb.add_argument("--minimums", action="store_true",
                    help="with --compile-only: check each variant's minimum PTX version and target from the "
                         "support table against ptxas (it assembles at them and not one version below)")
    pb.add_argument("--synthetic", action="store_true",
                    help="write dumps whose D the reference model computes, marked synthetic (no GPU)")
    pb.add_argument("--arch", default=None, help="comma-separated targets for --compile-only (default: "
                    "sm_80,sm_89,sm_90) and the one target of --synthetic (default: sm_90)")
    pb.add_argument("--seed", type=int, default=0)
    pb.add_argument("--format", choices=["text", "json"], default="text")


def run(args, out, err) -> int:
    if args.compile_only and args.synthetic:
        raise UsageError("--compile-only and --synthetic are two different runs; choose one")
    if args.minimums and not args.compile_only:
        raise UsageError("--minimums checks with the assembler: it goes with --compile-only")
    if not 0 <= args.seed < 1 << 62:
        raise UsageError("--seed takes 0..2**62-1")
    if args.compile_only:
        return compile_only(args, out)
    check_outputs(args)
    from checker.catalogue import min_sm
    from checker.probe.record import record

    todo = variants_of(args.paths)
    device = None
    if args.synthetic:
        targets = archs(args.arch or "sm_90")
        if len(targets) != 1:
            raise UsageError("--synthetic takes one --arch: the target its kernels are built for")
        sm, where = targets[0], args.out or os.path.join("reports", "synthetic")
    else:
        from checker.probe.gpu import Device

        device = Device()
        sm, where = device.sm, args.out or os.path.join("reports", "hardware")
    written, skipped = [], []
    t0 = time.perf_counter()
    for path, v in todo:
        need = min_sm(v)
        if need is None or sm < need:
            skipped.append(f"{v.instruction} (needs sm_{need})")
            continue
        try:
            written.append((v, record(v, path, where, sm, args.seed, device)))
        except (RuntimeError, ValueError) as exc:
            raise CheckerError(f"{v.instruction}: {exc}") from None
    seconds = time.perf_counter() - t0
    kind = "synthetic (reference model, not hardware)" if device is None else f"hardware ({device.name}, sm_{sm})"
    if args.format == "json":
        json.dump({"source": kind, "written": [p for _, p in written], "skipped": skipped,
                   "seconds": round(seconds, 3),
                   "launch_seconds": getattr(device, "launch_seconds", {})}, out, indent=1)
        out.write("\n")
    else:
        for v, p in written:
            out.write(f"wrote {p}\n")
        for s_ in skipped:
            out.write(f"skipped {s_}\n")
        out.write(f"{len(written)} {kind} dumps in {where}, {len(skipped)} skipped; {seconds:.1f} s\n")
    return 0
