"""Speed of `checker prove specs/` against the start-up floor `python -c "import z3, yaml"`.

Prints wall times (median and best of several runs, each a fresh process, as a user or CI sees
it) for the whole chapter and for the seed suite (the spec files of the five seed documents),
per-spec and per-property proving times from the JSON report, and the ratios to the floor. The
commands take turns round by round, the floor among them, so a shared machine's drift does not
fall on one of them only.

Every process may write and read Python's bytecode cache, as a normal installation does: with
PYTHONDONTWRITEBYTECODE set and no cache yet, Python compiles the checker's ~9000 lines on every
run (about 0.2 s more; the floor's z3 and PyYAML come compiled with their wheels).
Usage: python benchmarks/bench.py [--runs N] [PATH...]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import shutil
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = ["specs/m8n8k4.yaml", "specs/m16n8k16.yaml", "specs/m16n8k256.yaml", "specs/m8n8k32.yaml"]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def once(cmd: list, env: dict | None = None) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env or ENV)
    return time.perf_counter() - t0


def interleaved(commands: dict, runs: int) -> dict:
    """name -> (median, best) seconds of `runs` fresh processes each. The commands take turns,
    one run of each per round in a rotating order, so that a shared machine's drift (its load,
    its clock) falls on all of them alike and their ratios to the floor stay comparable."""
    times: dict = {name: [] for name in commands}
    names = list(commands)
    for r in range(runs):
        for name in names[r % len(names):] + names[:r % len(names)]:
            cmd, env = commands[name]
            times[name].append(once(cmd, env))
    return {name: (statistics.median(t), min(t)) for name, t in times.items()}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("paths", nargs="*", default=["specs/"])
    args = ap.parse_args()
    py = sys.executable
    checker = [py, "-m", "checker", "prove", *args.paths]
    cold = [*checker, "--no-cache"]
    seeds = [py, "-m", "checker", "prove", *SEEDS, "--no-cache"]
    once(cold)  # the lark tables, the bytecode and the OS file cache, as after the first run
    with tempfile.TemporaryDirectory() as where, tempfile.TemporaryDirectory() as alone:
        # The seed specs in a folder of their own: their scope is themselves (no relations.yaml,
        # no siblings), which is what the seed suite proved before the scope rule widened it.
        for path in SEEDS:
            shutil.copy(os.path.join(ROOT, path), alone)
        bare = [py, "-m", "checker", "prove", *(os.path.join(alone, os.path.basename(p)) for p in SEEDS), "--no-cache"]
        cached = dict(ENV, CHECKER_CACHE_DIR=where)
        once(checker, cached)  # fills the result cache
        got = interleaved({"floor": ([py, "-c", "import z3, yaml"], None), "full": (cold, None),
                           "z3_only": ([*cold, "--no-cross-check"], None), "seed": (seeds, None),
                           "bare": (bare, None), "one": ([*cold, "--jobs", "1"], None), "warm": (checker, cached)},
                          args.runs)
    floor, full, z3_only, seed, bare, one, warm = (got[k] for k in ("floor", "full", "z3_only", "seed", "bare", "one",
                                                                    "warm"))
    proc = subprocess.run([*cold, "--format", "json"], cwd=ROOT, capture_output=True, text=True, env=ENV)
    data = json.loads(proc.stdout)
    per_spec: dict = {}
    per_prop: dict = {}
    for r in data["results"]:
        per_spec[r["spec"]] = per_spec.get(r["spec"], 0.0) + r["seconds"]
        per_prop[r["property"]] = per_prop.get(r["property"], 0.0) + r["seconds"]
        per_prop["(cross-check: plain-Python engine)"] = per_prop.get("(cross-check: plain-Python engine)", 0.0) + r["cross_check_seconds"]
    print(f"cores: {os.cpu_count()}, python {sys.version.split()[0]}, runs: {args.runs} of each, interleaved (median, best)")
    target = " ".join(args.paths)
    rows = [('floor: python -c "import z3, yaml"', floor), (f"checker prove {target} --no-cache (both engines)", full),
            (f"checker prove {target} --no-cache --no-cross-check", z3_only),
            (f"checker prove {target} --no-cache --jobs 1", one),
            ("seed suite: checker prove <the 4 seed specs> --no-cache", seed),
            ("  the 4 seed specs alone (a folder of their own)", bare),
            (f"checker prove {target} (cache hit: unchanged inputs)", warm)]
    for label, (med, best) in rows:
        print(f"{label:58} {med:6.3f} s {med / floor[0]:5.1f}x   best {best:6.3f} s {best / floor[1]:5.1f}x")
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
