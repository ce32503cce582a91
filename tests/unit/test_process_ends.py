"""When the command ends, for any reason, no process of it remains (checker/children.py).

Each test runs the console script on its own copy of the specs, marked by an environment
variable that every process of the command inherits (and a folder name in its command line), and
finds those processes in /proc: while the command runs (the command and its workers), and after it has ended. SIGINT and SIGTERM are sent mid-proof, mid-mutation
and to the whole process group; a proof that finishes, a proof in one process, a usage error and
`--help` end the same way. No test sleeps for a race: /proc is polled against a deadline."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, SPECS

pytestmark = pytest.mark.skipif(not (hasattr(os, "fork") and os.path.isdir("/proc")),
                                reason="reads /proc to find the processes of a command that forks")

# copies of specs/ in a slow input: the command loads them all before its workers start,
# and proving them lasts far longer than a test takes to see a worker and signal
COPIES = 2
MUTATED = ("m16n8k16.yaml", "m16n8k256.yaml", "m8n8k4.yaml")


def _identity(pid: str, zombies: bool = True):
    """(pid, start time) while the process exists (a zombie, not reaped yet, counted or not);
    None once it is reaped."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        if fields[0] == b"Z" and not zombies:
            return None
        return int(pid), int(fields[19])
    except (OSError, ValueError, IndexError):
        return None


def _marked(marker: str) -> set:
    """The processes whose command line or environment holds `marker`, as (pid, start time)."""
    found = set()
    needle = marker.encode()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        for part in ("cmdline", "environ"):
            try:
                with open(f"/proc/{pid}/{part}", "rb") as fh:
                    if needle in fh.read():
                        ident = _identity(pid)
                        if ident:
                            found.add(ident)
                        break
            except OSError:
                pass
    return found


def _remaining(seen: set, marker: str, zombies: bool = True) -> set:
    """Of the processes seen, and of any with the marker, those that still exist."""
    return {p for p in seen if _identity(str(p[0]), zombies) == p} | _marked(marker)


def _input(tmp_path, marker: str, copies: int) -> list:
    """`copies` copies of specs/ under a folder named by the marker."""
    top = tmp_path / marker
    out = []
    for k in range(copies):
        shutil.copytree(SPECS, top / f"copy{k}", ignore=shutil.ignore_patterns("schema"))
        out.append(str(top / f"copy{k}"))
    return out


def _start(marker: str, argv: list, **kw) -> subprocess.Popen:
    env = dict(os.environ, CHECKER_NO_CACHE="1", CHECKER_PROCESS_TEST=marker)
    # SIGINT as a terminal leaves it, even where this test runs with it ignored (a background job)
    return subprocess.Popen([sys.executable, "-m", "checker", *argv], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **kw)


def _wait_for(marker: str, count: int, proc: subprocess.Popen, deadline_s: float = 60.0) -> set:
    """Poll /proc until `count` processes of the command are there at once."""
    deadline = time.monotonic() + deadline_s
    seen: set = set()
    while time.monotonic() < deadline:
        now = _marked(marker)
        seen |= now
        if len(now) >= count:
            return seen
        if proc.poll() is not None:
            pytest.fail(f"the command ended (exit {proc.returncode}) before {count} of its processes ran: "
                        f"{proc.stderr.read().decode(errors='replace')[-2000:]}")
        time.sleep(0.002)
    proc.kill()
    pytest.fail(f"{count} processes of the command never ran at once")


def _wait_until_it_handles(pid: int, proc: subprocess.Popen, deadline_s: float = 60.0) -> None:
    """Until the command has installed its handlers (checker/children.py): Python catches SIGINT
    from its start, but only the command catches SIGTERM (its SigCgt mask in /proc), so a signal
    sent after this tests the command's end, not Python's start."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with open(f"/proc/{pid}/status") as fh:
                caught = next(int(ln.split()[1], 16) for ln in fh if ln.startswith("SigCgt:"))
        except (OSError, StopIteration):
            caught = 0
        if caught >> (signal.SIGTERM - 1) & 1:
            return
        time.sleep(0.002)
    pytest.fail("the command never installed its signal handlers")


def _ends_clean(proc: subprocess.Popen, seen: set, marker: str, code: int, zombies: bool = True):
    """The command exits with `code`, and one second after, no process of it remains (nor a
    zombie: the command reaped them all, unless `zombies` is False)."""
    try:
        assert proc.wait(timeout=30) == code, proc.stderr.read().decode(errors="replace")[-2000:]
    finally:
        proc.stderr.close()
    deadline = time.monotonic() + 1.0
    while _remaining(seen, marker, zombies) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _remaining(seen, marker, zombies) == set()


def _marker(tmp_path, name: str) -> str:
    return f"ends-{name}-{os.getpid()}-{tmp_path.name}"


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_mid_proof_ends_every_process(tmp_path, sig, code):
    """Sent to the command's process while it and the worker it forked prove."""
    marker = _marker(tmp_path, f"prove-{sig}")
    proc = _start(marker, ["prove", *_input(tmp_path, marker, COPIES), "--jobs", "2"])
    seen = _wait_for(marker, 2, proc)  # the command and its worker
    os.kill(proc.pid, sig)
    _ends_clean(proc, seen, marker, code)


def test_a_signal_to_a_proof_in_one_process(tmp_path):
    """--jobs 1: the command proves alone; SIGINT ends it."""
    marker = _marker(tmp_path, "one")
    proc = _start(marker, ["prove", *_input(tmp_path, marker, COPIES), "--jobs", "1"])
    seen = _wait_for(marker, 1, proc)
    _wait_until_it_handles(proc.pid, proc)
    os.kill(proc.pid, signal.SIGINT)
    _ends_clean(proc, seen, marker, 130)


def test_ctrl_c_to_the_process_group_ends_every_process(tmp_path):
    """As a terminal's Ctrl-C does: SIGINT to every process of the command at once."""
    marker = _marker(tmp_path, "group")
    proc = _start(marker, ["prove", *_input(tmp_path, marker, COPIES), "--jobs", "2"], start_new_session=True)
    seen = _wait_for(marker, 2, proc)  # the command and its worker
    os.killpg(proc.pid, signal.SIGINT)
    _ends_clean(proc, seen, marker, 130)


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_mid_mutation_ends_every_process(tmp_path, sig, code):
    marker = _marker(tmp_path, f"mutate-{sig}")
    folder = _input(tmp_path, marker, 1)[0]
    proc = _start(marker, ["mutate", *(os.path.join(folder, name) for name in MUTATED), "--jobs", "2"])
    seen = _wait_for(marker, 2, proc)  # the command and its worker
    os.kill(proc.pid, sig)
    _ends_clean(proc, seen, marker, code)


def test_a_killed_command_takes_its_processes_with_it(tmp_path):
    """SIGKILL runs no handler: the kernel ends the worker (PR_SET_PDEATHSIG). Nobody of the command is left to reap them: that is init's work (which
    some container inits never do), so a zombie counts as ended here."""
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux's")
    marker = _marker(tmp_path, "kill")
    proc = _start(marker, ["prove", *_input(tmp_path, marker, COPIES), "--jobs", "2"])
    seen = _wait_for(marker, 2, proc)  # the command and its worker
    os.kill(proc.pid, signal.SIGKILL)
    _ends_clean(proc, seen, marker, -signal.SIGKILL, zombies=False)


# Runs a command as the subreaper of its descendants: whatever of it outlives the command (still
# running, or a zombie nobody reaped) comes back here, and is listed the moment the command returns.
_SUBREAPER = """
import ctypes, json, os, subprocess, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
left = []
for tid in os.listdir("/proc/self/task"):
    with open(f"/proc/self/task/{tid}/children") as fh:
        left += fh.read().split()
print(json.dumps([code, left]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a subreaper (prctl) finds what outlives the command")
@pytest.mark.parametrize("argv, code", [([], None), (["--jobs", "1"], None), (["--jobs", "0"], 2), (["--help"], 0)])
def test_a_command_that_ends_leaves_no_process(tmp_path, argv, code):
    """A finished proof (its workers reaped before the command returns, not left
    exiting), a proof in one process, a usage error, help: nothing remains, nor a zombie, once it
    has returned."""
    spec = tmp_path / "m8n8k32.yaml"
    shutil.copy(os.path.join(SPECS, "m8n8k32.yaml"), spec)
    proc = subprocess.run([sys.executable, "-c", _SUBREAPER, sys.executable, "-m", "checker", "prove", str(spec), *argv],
                          capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env=dict(os.environ, CHECKER_NO_CACHE="1"))
    assert proc.returncode == 0, proc.stderr
    got, left = json.loads(proc.stdout)
    assert got in ((0, 1) if code is None else (code,))
    assert left == []  # at once: the command reaped them before it returned


def test_z3_leaves_sigint_to_the_process():
    """z3 catches SIGINT inside a query and answers `unknown` unless told not to (ctrl_c): a
    Ctrl-C would then give a result instead of ending the process. Here SIGINT comes every few
    milliseconds during a query that runs to its resource limit: z3 ends it for that limit (it
    spent all of it), not for the signal, and the process's own handler runs once it returns."""
    import threading

    from checker.smt import solver

    interp = solver._interpreter()
    seen, done = [], threading.Event()
    old = signal.signal(signal.SIGINT, lambda *_: seen.append(1))

    def interrupt():
        while not done.wait(0.005):
            os.kill(os.getpid(), signal.SIGINT)

    hard = ("(push)(set-option :rlimit 2000000)(declare-const x (_ BitVec 72))(declare-const y (_ BitVec 72))"
            "(assert (= (bvmul x y) #x00d9d3c8e1f4b2a7c5))(assert (bvugt x #x000000000000000001))"
            "(assert (bvugt y #x000000000000000001))(assert (bvult x #x0000000000ffffffff))"
            "(assert (bvult y #x0000000000ffffffff))(check-sat)(get-info :all-statistics)(pop)")
    sender = threading.Thread(target=interrupt)
    try:
        sender.start()
        out = interp.run(hard)
    finally:
        done.set()
        sender.join()
        signal.signal(signal.SIGINT, old)
    spent = re.search(r":rlimit-count\s+(\d+)", out)
    assert out.split()[0] == "unknown" and spent and int(spent.group(1)) >= 2_000_000, out
    assert seen
