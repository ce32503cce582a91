"""`checker probe`: run every variant's mma on a GPU, or the reference model (--synthetic), and
write a dump per variant; --compile-only is checker/commands/probe_compile.py. Every text output of
probe (its modules build lines and print them once) goes through checker.terminal: a spec path or an
output folder is shown escaped, each line one line."""
from __future__ import annotations

import json
import os
import time

from checker.commands.common import add_format, add_output, add_specs, check_outputs, command, integer
from checker.commands.probe_compile import archs, compile_only, variants_of
from checker.errors import CheckerError, UsageError
from checker.terminal import lines

NAME = "probe"


def add(sub) -> None:
    pb = command(sub, NAME, "run every variant's mma on a GPU and write dumps; --compile-only, --synthetic",
                 "Run every variant's mma of the specs on an NVIDIA GPU (the [gpu] extra) with patterns that "
                 "identify every register slot, and write one dump per variant for `checker crosscheck`. "
                 "Without a GPU: --compile-only assembles every kernel with ptxas, --synthetic writes dumps "
                 "the reference model computes, --emit-ptx writes the kernels with their inputs and "
                 "expected outputs, to run by hand (docs/probe.md).",
                 ["checker probe specs/                                  # on a GPU: reports/hardware/",
                  "checker probe specs/ --compile-only --arch sm_80,sm_90",
                  "checker probe specs/m16n8k16.yaml --emit-ptx kernels/  # PTX + inputs + expected D",
                  "checker probe specs/ --synthetic --out /tmp/synthetic"])
    add_specs(pb)
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
    pb.add_argument("--emit-ptx", metavar="DIR",
                    help="write each variant's PTX kernel, its input register images and the expected D into "
                         "DIR, with a manifest and how to launch them (no GPU needed)")
    pb.add_argument("--seed", type=integer, default=0, metavar="N", help="the patterns' seed (default: 0)")
    add_format(pb)
    add_output(pb, "write what the command prints (the summary, or --format json) to FILE instead of stdout")


def run(args, out, err) -> int:
    if sum(map(bool, (args.compile_only, args.synthetic, args.emit_ptx))) > 1:
        raise UsageError("--compile-only, --synthetic and --emit-ptx are different runs; choose one")
    if args.minimums and not args.compile_only:
        raise UsageError("--minimums checks with the assembler: it goes with --compile-only")
    if not 0 <= args.seed < 1 << 62:
        raise UsageError("--seed takes 0..2**62-1")
    if args.compile_only:
        return compile_only(args, out)
    from checker.commands.probe_movement import on_device, split, synthetic
    from checker.commands.probe_wgmma import split as split_wgmma

    paths, wgmma = split_wgmma(args.paths)
    mma_paths, moving = split(paths) if paths else ([], {})
    if args.emit_ptx:
        from checker.commands.probe_emit import emit

        return emit(args, out, mma_paths, moving, wgmma)
    check_outputs(args)
    from checker.catalogue import min_sm
    from checker.probe.record import record

    todo = variants_of(mma_paths) if mma_paths else []
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
    if wgmma:
        from checker.commands.probe_wgmma import record_all

        done, skip = record_all(wgmma, where, args.seed, device)
        written += [(None, p) for p in done]
        skipped += skip
    for path, v in todo:
        need = min_sm(v)
        if need is None or sm < need:
            skipped.append(f"{v.instruction} (needs sm_{need})")
            continue
        try:
            written.append((v, record(v, path, where, sm, args.seed, device)))
        except (RuntimeError, ValueError) as exc:
            raise CheckerError(f"{v.instruction}: {exc}") from None
    if moving:
        moved, skip = (synthetic(moving, where, args.arch or "sm_90", args.seed) if device is None
                       else on_device(moving, where, device, args.seed))
        written += [(None, p) for p in moved]
        skipped += skip
    seconds = time.perf_counter() - t0
    kind = "synthetic (reference model, not hardware)" if device is None else f"hardware ({device.name}, sm_{sm})"
    if args.format == "json":
        json.dump({"source": kind, "written": [p for _, p in written], "skipped": skipped,
                   "seconds": round(seconds, 3),
                   "launch_seconds": getattr(device, "launch_seconds", {})}, out, indent=1)
        out.write("\n")
    else:
        out.write(lines([f"wrote {p}" for _, p in written] + [f"skipped {s_}" for s_ in skipped]
                        + [f"{len(written)} {kind} dumps in {where}, {len(skipped)} skipped; {seconds:.1f} s"]))
    return 0
