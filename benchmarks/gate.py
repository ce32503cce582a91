"""Wall time of the CI gate's steps on the seed specs (what .github/workflows/spec-gate.yml runs),
and of the pre-commit hook's command on one spec. Each is run REPEAT times; the median is shown.

    python benchmarks/gate.py
"""
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKER = os.path.join(os.path.dirname(sys.executable), "checker")
REPEAT = 5
STEPS = [
    ("validate specs/", ["validate", "specs/"]),
    ("prove specs/ --no-cache --format sarif", ["prove", "specs/", "--no-cache", "--format", "sarif", "--output", os.devnull]),
    ("crosscheck specs/ --dumps reports/", ["crosscheck", "specs/", "--dumps", "reports/"]),
    ("report specs/ --out reports --check", ["report", "specs/", "--out", "reports", "--check"]),
    ("diff (one edited spec) --format markdown", ["diff", "specs/m16n8k16.yaml", "specs/m16n8k16.yaml",
                                                 "--format", "markdown"]),
    ("pre-commit hook: prove --jobs 1 one spec, cold", ["prove", "--jobs", "1", "--no-cache", "specs/m16n8k16.yaml"]),
    ("pre-commit hook: the same spec again (cache hit)", ["prove", "--jobs", "1", "specs/m16n8k16.yaml"]),
]


def main():
    total = 0.0
    for name, args in STEPS:
        times = []
        for _ in range(REPEAT):
            t0 = time.perf_counter()
            subprocess.run([CHECKER, *args], cwd=ROOT, capture_output=True, check=False)
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        if not name.startswith("pre-commit"):
            total += med
        print(f"{name:45s} {med:6.2f} s (median of {REPEAT})")
    print(f"{'whole gate (the first five)':45s} {total:6.2f} s")


if __name__ == "__main__":
    main()
