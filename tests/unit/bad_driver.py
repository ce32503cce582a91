"""Runs `checker prove` on every hostile case inside one child process with bounded memory and
time, and reports exit code, output and any escaped exception for each."""
import io
import json
import resource
import sys
import time
import traceback

resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
sys.setrecursionlimit(1000)
from checker.cli import main  # noqa: E402

report = []
for path in sys.argv[1:]:
    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    try:
        code = main(["prove", path], out, err)
        escaped = None
    except BaseException:  # noqa: BLE001 - the test fails on any escape, it must see them all
        code, escaped = None, traceback.format_exc()
    report.append({"path": path, "code": code, "out": out.getvalue(), "err": err.getvalue(),
                   "escaped": escaped, "seconds": time.perf_counter() - t0})
print(json.dumps(report))
