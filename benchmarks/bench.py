"""Speed of `checker prove specs/` against the start-up floor `python -c "import z3, yaml"`.

Prints wall times (median of several runs, each a fresh process, as a user or CI sees it),
per-spec and per-property proving times from the JSON report, and the ratio to the floor.
Usage: python benchmarks/bench.py [--runs N] [PATH...]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def wall(cmd: list, runs: int, env: dict | None = None) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("paths", nargs="*", default=["specs/"])
    args = ap.parse_args()
    py = sys.executable
    checker = [py, "-m", "checker", "prove", *args.paths]
    cold = [*checker, "--no-cache"]
    wall(cold, 1)  # warm the lark cache and the OS file cache
    floor = wall([py, "-c", "import z3, yaml"], args.runs)
    full = wall(cold, args.runs)
    z3_only = wall([*cold, "--no-cross-check"], args.runs)
    with tempfile.TemporaryDirectory() as where:
        env = dict(os.environ, CHECKER_CACHE_DIR=where)
        wall(checker, 1, env)  # fills the result cache
        warm = wall(checker, args.runs, env)
    proc = subprocess.run([*cold, "--format", "json"], cwd=ROOT, capture_output=True, text=True)
    data = json.loads(proc.stdout)
    per_spec: dict = {}
    per_prop: dict = {}
    for r in data["results"]:
        per_spec[r["spec"]] = per_spec.get(r["spec"], 0.0) + r["seconds"]
        per_prop[r["property"]] = per_prop.get(r["property"], 0.0) + r["seconds"]
        per_prop["(cross-check: plain-Python engine)"] = per_prop.get("(cross-check: plain-Python engine)", 0.0) + r["cross_check_seconds"]
    print(f"cores: {os.cpu_count()}, python {sys.version.split()[0]}, runs: {args.runs} (median)")
    target = " ".join(args.paths)
    rows = [('floor: python -c "import z3, yaml"', floor), (f"checker prove {target} --no-cache (both engines)", full),
            (f"checker prove {target} --no-cache --no-cross-check", z3_only),
            (f"checker prove {target} (cache hit: unchanged inputs)", warm)]
    for label, t in rows:
        print(f"{label:60} {t:7.3f} s  {t / floor:5.1f}x floor")
    print(f"in-process total reported by the prover: {data['summary']['seconds']:.3f} s")
    print("\nper spec (proving time inside the process):")
    for spec, s in sorted(per_spec.items()):
        print(f"  {os.path.relpath(spec, ROOT):40} {s * 1000:8.1f} ms")
    print("per property (summed over fragments and computations):")
    for prop, s in sorted(per_prop.items(), key=lambda kv: -kv[1]):
        print(f"  {prop:40} {s * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
