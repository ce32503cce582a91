"""The processes of a proof. `checker prove` overlapped on two (checker/launch.py): the same
results as in one, the command's own process never imports z3 or lark; a prover process forked
before the command line is parsed is the one a Run takes, or is ended whatever the command line
says. Tasks shared with forked workers (checker/workers.py): the same answers as a loop, in
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

from checker import children, launch, prover, workers
from checker.errors import CheckerError
from checker.files import under

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the overlap forks; without fork it is never used")

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


def test_overlapped_gives_the_results_of_one_process():
    files = under([SPECS], (".yaml", ".yml")) + [BAD_INJECTIVE, BROKEN, UNKNOWN_NAME]
    opts = launch.Options(jobs=2)
    one = prover.prove_paths(files, opts)
    two = launch.overlapped(files, opts)
    assert _plain(two) == _plain(one)
    assert any(r.verdict == "REFUTED" and not r.erratum for r in two)  # the mutant
    assert {r.spec for r in two if r.verdict == "SPEC_ERROR"} == {BROKEN, UNKNOWN_NAME}  # loading; lowering


def test_the_command_process_imports_neither_z3_nor_lark():
    code = ("import io, sys\nfrom checker.cli import main\nout = io.StringIO()\n"
            f"code = main(['prove', {os.path.join(SPECS, 'm16n8k256.yaml')!r}, '--jobs', '2'], out)\n"
            "print(code, 'z3' in sys.modules, 'lark' in sys.modules, out.getvalue().splitlines()[-1])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env=dict(os.environ, CHECKER_NO_CACHE="1"))
    assert proc.returncode == 0, proc.stderr
    code, z3, lark, last = proc.stdout.split(" ", 3)
    assert (code, z3, lark) == ("0", "False", "False")
    assert "errata confirmed" in last and proc.stderr == ""


def test_the_prover_process_imports_in_one_thread_only(tmp_path):
    """Where the z3 package ships no library of its own, z3's Python binding is imported: never
    in the thread that makes the z3 context beside the prover's imports (two threads importing at
    once can find a module half made: "partially initialized module 'typing'", 2 runs in 30)."""
    log = tmp_path / "imports-in-threads"
    code = ("import sys, threading\nfrom checker.smt import libz3\nlibz3._shipped = lambda: None\n"
            "class Watch:\n    def find_spec(self, name, path=None, target=None):\n"
            "        if threading.current_thread() is not threading.main_thread():\n"
            f"            open({str(log)!r}, 'a').write(name + '\\n')\n"
            "sys.meta_path.insert(0, Watch())\nfrom checker import launch\n"
            f"results = launch.overlapped([{os.path.join(SPECS, 'm8n8k32.yaml')!r}], launch.Options(jobs=2))\n"
            "print(len(results), all(not r.failed() for r in results))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[1] == "True" and int(proc.stdout.split()[0]) > 10
    assert not log.exists(), log.read_text()


def test_a_failing_prover_process_is_reported(monkeypatch):
    def broken(*args):
        raise RuntimeError("no solver today")

    monkeypatch.setattr(prover, "prove_loaded", broken)  # the forked child inherits it
    with pytest.raises(CheckerError, match="the prover process failed: RuntimeError: no solver today"):
        launch.overlapped([os.path.join(SPECS, "m8n8k32.yaml")], launch.Options(jobs=2))


def test_a_dead_prover_process_is_reported(monkeypatch):
    monkeypatch.setattr(prover, "prove_loaded", lambda *args: os._exit(7))
    with pytest.raises(CheckerError, match=r"ended without an answer \(exit status 7\)"):
        launch.overlapped([os.path.join(SPECS, "m8n8k32.yaml")], launch.Options(jobs=2))


def test_a_failure_while_loading_ends_the_prover_process(monkeypatch):
    def broken(path):
        raise KeyError(path)

    monkeypatch.setattr(launch, "load", broken)
    with pytest.raises(KeyError):  # raised, not waited on: the child read an end of file and exited
        launch.overlapped([os.path.join(SPECS, "m8n8k32.yaml")], launch.Options(jobs=2))


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


def test_an_unused_run_ends_its_prover_process(monkeypatch):
    monkeypatch.setattr(launch, "overlaps", lambda opts: True)  # this test process imported the provers
    with launch.Run(launch.Options(jobs=2)) as run:  # as on a cache hit: started, never sent anything
        pid = run.child.pid
        assert not _reaped(pid)
    assert _reaped_soon(pid)


def test_an_error_before_proving_ends_the_prover_process(monkeypatch):
    monkeypatch.setattr(launch, "overlaps", lambda opts: True)
    with pytest.raises(ValueError, match="the cache broke"):
        with launch.Run(launch.Options(jobs=2)) as run:
            pid = run.child.pid
            raise ValueError("the cache broke")
    assert _reaped_soon(pid)


def test_a_run_proves_in_one_process_where_it_cannot_overlap():
    run = launch.Run(launch.Options(jobs=1))
    assert run.child is None
    assert _plain(run.prove([os.path.join(SPECS, "m8n8k32.yaml")])) == \
        _plain(prover.prove_paths([os.path.join(SPECS, "m8n8k32.yaml")], launch.Options(jobs=1)))


def test_a_prestarted_prover_process_is_the_one_a_run_takes(monkeypatch):
    monkeypatch.setattr(launch, "overlaps", lambda opts: opts.jobs > 1)
    launch.prestart(["validate", SPECS])
    assert launch._EARLY == []  # only a proof starts a prover
    launch.prestart(["prove", SPECS])
    pid = launch._EARLY[0].pid
    files = [os.path.join(SPECS, "m8n8k32.yaml")]
    with launch.Run(launch.Options(jobs=2)) as run:
        assert run.child.pid == pid and launch._EARLY == []
        got = run.prove(files)
    assert _reaped_soon(pid)
    assert _plain(got) == _plain(prover.prove_paths(files, launch.Options(jobs=1)))


def test_a_prestarted_prover_process_ends_when_the_options_say_one_process(monkeypatch):
    monkeypatch.setattr(launch, "overlaps", lambda opts: opts.jobs > 1)
    launch.prestart(["prove", SPECS])
    pid = launch._EARLY[0].pid
    run = launch.Run(launch.Options(jobs=1))
    assert run.child is None and _reaped_soon(pid)


def test_a_prestarted_prover_process_ends_when_no_run_takes_it(monkeypatch):
    monkeypatch.setattr(launch, "overlaps", lambda opts: opts.jobs > 1)
    launch.prestart(["prove", "--help"])
    pid = launch._EARLY[0].pid
    launch.stop_early()
    assert _reaped_soon(pid) and launch._EARLY == []


def test_a_child_that_answered_whole_is_not_waited_for():
    """Its exit (freeing a z3 context, a copy of this process) is off the critical path: the answer
    is read while the child is still there, and the child is reaped once it has gone."""
    answers_in, answers_out = os.pipe()
    pid = children.fork()
    if pid == 0:
        os.close(answers_in)
        os.write(answers_out, __import__("pickle").dumps(("results", 42)))
        os.close(answers_out)
        time.sleep(30)  # still exiting, as far as the parent can tell
        os._exit(0)
    os.close(answers_out)
    assert workers.answer(answers_in, pid) == ("results", 42)
    assert not _reaped(pid)
    os.kill(pid, signal.SIGKILL)
    assert _reaped_soon(pid)
