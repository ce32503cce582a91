"""Interleaved A/B timing of two commands, as the speed audit (docs/speed.md) measured.

Each round runs A then B (or B then A, alternating), each a fresh process; the figure is the
median of the per-round ratios A/B, wall and CPU (user + system of the child), so a machine whose
load drifts during the runs weighs on both sides of every ratio alike.

Usage: python benchmarks/ab.py [--runs N] "COMMAND A" "COMMAND B"
(each command is split as a shell splits words; neither is given a shell)
"""
from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import time

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def once(argv: list) -> tuple:
    """(wall, cpu) seconds of one run of argv."""
    before = os.times()
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENV)
    wall = time.perf_counter() - t0
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("a")
    ap.add_argument("b")
    args = ap.parse_args()
    a, b = shlex.split(args.a), shlex.split(args.b)
    once(a), once(b)  # warm the OS file cache and the bytecode cache
    walls, cpus, times = [], [], {"A": [], "B": []}
    for r in range(args.runs):
        order = [("A", a), ("B", b)] if r % 2 == 0 else [("B", b), ("A", a)]
        got = {name: once(argv) for name, argv in order}
        times["A"].append(got["A"])
        times["B"].append(got["B"])
        walls.append(got["A"][0] / got["B"][0])
        cpus.append(got["A"][1] / got["B"][1] if got["B"][1] else float("nan"))
    for name in ("A", "B"):
        w = [t[0] for t in times[name]]
        print(f"{name}: wall median {statistics.median(w):.3f} s (best {min(w):.3f} s)")
    print(f"A/B wall: median {statistics.median(walls):.3f} (min {min(walls):.3f}, max {max(walls):.3f})")
    print(f"A/B cpu:  median {statistics.median(cpus):.3f} (min {min(cpus):.3f}, max {max(cpus):.3f})")
    print(f"cores: {os.cpu_count()}, load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
