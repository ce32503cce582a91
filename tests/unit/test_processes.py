"""The processes of a proof: in two (--jobs 2) the same results as in one; loading a spec imports
no prover. Tasks shared with forked workers (checker/workers.py): the same answers as a loop, in
order, however many. A process that fails or dies is reported in a line, never waited on
forever; one that answered whole is reaped once gone, not waited for."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import CASES, ROOT, SPECS

from checker import children, prover, workers
from checker.options import Options
from checker.errors import CheckerError
from checker.files import spec_yaml

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="workers fork; without fork a proof runs in one process")

BAD_INJECTIVE = os.path.join(CASES, "mutants", "injective-mask", "m16n8k256.yaml")
BROKEN = os.path.join(CASES, "bad", "broken-yaml", "m8n8k32.yaml")
UNKNOWN_NAME = os.path.join(CASES, "bad", "formula-unknown-name", "m8n8k32.yaml")


@pytest.fixture(autouse=True)
def bounded():
    """A hang between the two processes fails the test in a minute rather than stalling CI."""
    def expired(*_):
        raise TimeoutError("the two processes waited on each other for a minute")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _plain(results):
    return [json.dumps({k: v for k, v in r.as_json().items() if not k.endswith("seconds")}, sort_keys=True)
            for r in results]


def test_a_proof_in_two_processes_gives_the_results_of_one():
    files = spec_yaml([SPECS]) + [BAD_INJECTIVE, BROKEN, UNKNOWN_NAME]
    one = prover.prove_paths(files, Options(jobs=1))
    two = prover.prove_paths(files, Options(jobs=2))
    assert _plain(two) == _plain(one)
    assert any(r.verdict == "REFUTED" and not r.erratum for r in two)  # the mutant
    assert {r.spec for r in two if r.verdict == "SPEC_ERROR"} == {BROKEN, UNKNOWN_NAME}  # loading; lowering


def test_loading_a_spec_imports_neither_z3_nor_lark():
    """Reading specs (YAML, the schema, the model) is the part of a command that needs no prover:
    `validate`, `table` of a parsed layout aside, and a cache hit stay off the solver's imports."""
    code = ("import sys\nfrom checker.spec.load import load_spec\n"
            f"spec = load_spec({os.path.join(SPECS, 'm16n8k256.yaml')!r})\n"
            "print(len(spec.fragments()), 'z3' in sys.modules, 'lark' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["3", "False", "False"]


def test_a_failing_worker_of_a_proof_is_reported(monkeypatch):
    real, parent = prover.prove_fragment, os.getpid()

    def broken(*args, **kwargs):
        if os.getpid() != parent:
            raise RuntimeError("no solver today")
        time.sleep(0.05)  # the parent takes its tickets slowly: the worker is sure to take one
        return real(*args, **kwargs)

    monkeypatch.setattr(prover, "prove_fragment", broken)  # the forked worker inherits it
    with pytest.raises(CheckerError, match="a worker process failed: RuntimeError: no solver today"):
        prover.prove_paths([os.path.join(SPECS, "m16n8k16.yaml")], Options(jobs=2))


def test_a_theorem_that_raises_is_a_located_result_in_every_process(monkeypatch):
    """A SpecError raised by a task (a theorem that cannot be asked) is that task's result at the
    error's location, whichever process took it: raised, it ended the proof with exit 3 in this
    process and a worker failure (exit 1) in a forked one."""
    from checker.errors import SourceSpan, SpecError

    real = prover.spec_theorems
    path = os.path.join(SPECS, "m16n8k16.yaml")

    def raising(spec, readings, opts, families=()):
        if "packing" in families:
            raise SpecError(SourceSpan(spec.path, 3, 5), "no packing today")
        return real(spec, readings, opts, families)

    monkeypatch.setattr(prover, "spec_theorems", raising)  # the forked worker inherits it
    one = prover.prove_paths([path], Options(jobs=1))
    two = prover.prove_paths([path], Options(jobs=2))
    assert _plain(one) == _plain(two)
    (bad,) = [r for r in two if r.verdict == "SPEC_ERROR"]
    assert (bad.location, bad.property, bad.subject, bad.message) == (f"{path}:3:5", "packing", "packing",
                                                                      "no packing today")
    assert any(r.property == "shared-layout" and r.verdict == "PROVED" for r in two)  # the other tasks answered


def test_a_task_that_fails_in_this_process_is_reported_as_a_worker_s():
    """Which process takes a task must not change what the command says: a failure in the
    calling process is reported like a forked worker's (test_a_failing_worker_is_reported)."""
    parent = os.getpid()

    def fn(x):
        if os.getpid() == parent:
            raise ValueError("bad task")
        time.sleep(0.01)
        return x

    with pytest.raises(workers.WorkerFailed, match=r"a worker process failed: ValueError: bad task; \d+ of 30 tasks"):
        workers.run(fn, list(range(30)), 2)


def _square(x):
    return x, x * x


@pytest.mark.parametrize("processes", [1, 2, 3, 8])
def test_shared_tasks_give_the_answers_of_a_loop(processes):
    items = list(range(40))
    assert workers.run(_square, items, processes) == [_square(x) for x in items]


def test_more_tickets_than_a_pipe_holds():
    items = list(range(20_000))  # 80 KB of tickets: written while the children drain them
    assert workers.run(abs, items, 2) == items


def _in_a_child(parent, what):
    def fn(x):
        if os.getpid() != parent:
            what()
        time.sleep(0.01)  # the parent takes its tickets slowly: the child is sure to take some
        return x
    return fn


def test_a_failing_worker_is_reported():
    def fail():
        raise ValueError("bad task")

    with pytest.raises(workers.WorkerFailed, match=r"a worker process failed: ValueError: bad task; \d+ of 30 tasks"):
        workers.run(_in_a_child(os.getpid(), fail), list(range(30)), 2)


def test_a_dead_worker_is_reported():
    with pytest.raises(workers.WorkerFailed, match=r"ended without an answer \(exit status 5\); \d+ of 30 tasks"):
        workers.run(_in_a_child(os.getpid(), lambda: os._exit(5)), list(range(30)), 2)


def _reaped(pid) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _reaped_soon(pid) -> bool:
    """A child that answered is reaped once it has exited, not waited for (workers.answer)."""
    for _ in range(1000):
        children.reap()
        if _reaped(pid):
            return True
        time.sleep(0.01)
    return False


@pytest.mark.parametrize("names", [("m16n8k16.yaml", "m8n8k4.yaml"), ("ldmatrix.m8n16.yaml", "m16n8k16.yaml"),
                                   ("tcgen05.16x256b.yaml", "tcgen05.32x32b.yaml")])
def test_a_proof_imports_no_numpy_in_any_process(tmp_path, names):
    """numpy's import costs more than z3's, and more than the containers theorems' whole
    enumeration (docs/speed.md): proving mma specs, an ldmatrix .b8x16 spec with its containers
    theorems, or tcgen05 specs with their Tensor Memory atoms (131,072 bits at .32x32b.x128) never
    imports it, in the command process or in a worker. Each task notes, as it ends,
    whether its process has imported numpy."""
    seen = tmp_path / "seen"
    code = ("import os, sys\nfrom checker import prover\nfrom checker.options import Options\n"
            "task = prover._task\n"
            "def noting(args):\n"
            "    r = task(args)\n"
            f"    with open({str(seen)!r}, 'a') as f:\n"
            "        f.write(f\"{os.getpid()} {'numpy' in sys.modules}\\n\")\n"
            "    return r\n"
            "prover._task = noting\n"
            f"rs = prover.prove_paths({[os.path.join(SPECS, name) for name in names]!r}, Options(jobs=2))\n"
            "print(len(rs), 'numpy' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    count, parent = proc.stdout.split()
    assert int(count) > 0 and parent == "False"
    lines = seen.read_text().split("\n")[:-1]
    assert len({line.split()[0] for line in lines}) == 2  # both processes ran tasks
    assert {line.split()[1] for line in lines} == {"False"}


def test_no_more_workers_than_cores(monkeypatch):
    """`--jobs 1000` (a slip for 10) forked a thousand workers: 38 s for a 1 s proof on two cores.
    The forks stop at the cores there are, two at least."""
    forks = []
    real = children.fork
    monkeypatch.setattr(children, "fork", lambda: forks.append(1) or real())
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    assert workers.run(abs, list(range(-50, 50)), 1000) == [abs(k) for k in range(-50, 50)]
    assert len(forks) == max(2, cores) - 1
