"""Wall time of the CI gate's steps over the whole chapter (what .github/workflows/spec-gate.yml
runs, in its order), and of the pre-commit hook's command on one spec. Each is run --runs times;
the median is shown. Every step uses the checker's default `--jobs` (up to 2 processes).

    python benchmarks/gate.py [--runs N]
    python benchmarks/gate.py --against REV [--runs N]

--against REV times the checker of git revision REV (a temporary worktree) and this tree in turn,
step by step, the order swapped every round, so that a shared machine's drift falls on both: the
A/B a speed change is kept on. Each tree runs its own checker (`python -m checker` in its own
folder imports the package there) on its own specs, reports and dumps.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEPS = [
    ("validate specs/", ["validate", "specs/"]),
    ("verbatim specs/ --document document/", ["verbatim", "specs/", "--document", "document/"]),
    ("prove specs/ --no-cache --format sarif", ["prove", "specs/", "--no-cache", "--format", "sarif", "--output", os.devnull]),
    ("crosscheck specs/ --dumps reports/", ["crosscheck", "specs/", "--dumps", "reports/"]),
    ("report specs/ --out reports --check", ["report", "specs/", "--out", "reports", "--check"]),
    ("mutate specs/ (the campaign)", ["mutate", "specs/", "--known-gaps", "mutation/known-gaps.yaml",
                                      "--dumps", "reports/hardware"]),
    ("diff (one edited spec) --format markdown", ["diff", "specs/m16n8k16.yaml", "specs/m16n8k16.yaml",
                                                 "--format", "markdown"]),
    ("pre-commit hook: prove --jobs 1 one spec, cold", ["prove", "--jobs", "1", "--no-cache", "specs/m16n8k16.yaml"]),
    ("pre-commit hook: the same spec again (cache hit)", ["prove", "--jobs", "1", "specs/m16n8k16.yaml"]),
]
# Python's bytecode cache is used, as an installation uses it (see benchmarks/bench.py)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def once(tree: str, args: list) -> float:
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "checker", *args], cwd=tree, env=ENV, capture_output=True, check=False)
    took = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"{tree}: checker {' '.join(args)} exited {done.returncode}:\n{done.stdout.decode()[-2000:]}"
                 f"{done.stderr.decode()[-2000:]}")
    return took


def gated(name: str) -> bool:
    return not name.startswith("pre-commit")


def alone(runs: int) -> None:
    total = 0.0
    for name, args in STEPS:
        med = statistics.median(once(ROOT, args) for _ in range(runs))
        total += med if gated(name) else 0.0
        print(f"{name:50s} {med:6.2f} s (median of {runs})")
    print(f"{'whole gate (every step but the hook)':50s} {total:6.2f} s")


def against(rev: str, runs: int) -> None:
    where = tempfile.mkdtemp(prefix="checker-gate-")
    base = os.path.join(where, "base")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", "-q", base, rev], check=True)
    try:
        times: dict = {}
        for r in range(runs):
            for name, args in STEPS:
                for tree in ((base, ROOT) if r % 2 == 0 else (ROOT, base)):
                    times.setdefault((name, tree), []).append(once(tree, args))
        print(f"{'step':50s} {rev:>10s} {'this tree':>10s}  (medians of {runs}, in turn)")
        totals = [0.0, 0.0]
        for name, _ in STEPS:
            a, b = statistics.median(times[(name, base)]), statistics.median(times[(name, ROOT)])
            if gated(name):
                totals = [totals[0] + a, totals[1] + b]
            print(f"{name:50s} {a:8.2f} s {b:8.2f} s  {a / b:4.2f}x")
        print(f"{'whole gate (every step but the hook)':50s} {totals[0]:8.2f} s {totals[1]:8.2f} s  "
              f"{totals[0] / totals[1]:4.2f}x")
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", base], check=False)
        shutil.rmtree(where, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--against", metavar="REV", help="time the checker at this git revision and this tree, in turn")
    args = ap.parse_args()
    if args.against:
        against(args.against, args.runs)
    else:
        alone(args.runs)


if __name__ == "__main__":
    main()
