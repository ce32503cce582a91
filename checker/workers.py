"""Tasks shared by this process and forked copies of it, each taking the next task when it is free.

multiprocessing.Pool did this before. Its start (an import, three threads, the forks) and its
hand-offs of every task and result between threads cost about 40 ms of a 0.3 s seed run; and a
worker that dies (z3 crashing, the kernel's OOM killer) leaves Pool.imap waiting forever. Here
the tasks are numbered tickets in a pipe: a process reads one (four bytes, which no other reader
can split) when it is free, so the heaviest tasks, queued first, start first. The calling process
is a worker too; each child sends everything it computed once, when the tickets run out; a child
that dies is reported with the number of tasks that have no result. Every worker is forked,
ended and reaped by checker/children.py: none outlives the process that forked it.
"""
from __future__ import annotations

import functools
import os
import pickle
import struct

from checker import children
from checker.errors import CheckerError

_TICKET = struct.Struct("<I")
# a write of at most PIPE_BUF bytes (4096 on Linux, at least 512 by POSIX) reaches the pipe whole,
# so a reader never finds part of a ticket
_CHUNK = 512


class WorkerFailed(CheckerError):
    """A forked worker raised or died: a bug or a crash, never a verdict."""


def run(fn, items: list, processes: int) -> list:
    """[fn(item) for item in items], computed by this process and `processes - 1` forked ones."""
    if processes < 2 or len(items) < 2 or not hasattr(os, "fork"):
        return [fn(item) for item in items]
    tickets_in, tickets_out = os.pipe()
    forked = []
    # no more processes than cores (two at least, so `--jobs 2` always forks): `--jobs 1000`, a
    # slip for 10, forked a thousand copies and took 38 s for a 1 s proof on two cores
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    for _ in range(min(processes, len(items), max(2, cores)) - 1):
        answers_in, answers_out = os.pipe()
        pid = children.fork()
        if pid == 0:
            os.close(tickets_out)
            os.close(answers_in)
            for _, other in forked:
                os.close(other)
            reply(answers_out, lambda: _take(fn, items, tickets_in))
        os.close(answers_out)
        forked.append((pid, answers_in))
    # written after the forks: a pipe holds 64 KB, and the children are there to drain a longer list
    tickets = b"".join(_TICKET.pack(k) for k in range(len(items)))
    for at in range(0, len(tickets), _CHUNK):
        os.write(tickets_out, tickets[at:at + _CHUNK])
    os.close(tickets_out)
    done, failures = {}, []
    try:
        _take(fn, items, tickets_in, done)
    except Exception as exc:  # noqa: BLE001 - reported as a child's is: which process took the task must not
        # change what the command says or its exit code (signals, BaseException, still end it)
        failures.append(f"a worker process failed: {type(exc).__name__}: {exc}")
    finally:
        os.close(tickets_in)
        answers = [answer(fd, pid) for pid, fd in forked]
    for kind, payload in answers:
        if kind == "results":
            done.update(payload)
        else:
            failures.append(f"a worker process {payload}")
    if failures:
        missing = len(items) - len(done)
        raise WorkerFailed("; ".join(failures) + f"; {missing} of {len(items)} tasks have no result")
    return [done[k] for k in range(len(items))]


def run_in_order(fn, items: list, processes: int) -> list:
    """run(), for work whose errors are the user's to read (a spec or a dump that cannot be used): a
    CheckerError that fn raises for an item comes back as a value, and the first of them in the
    items' order is raised here, as a loop in one process raises it, whichever process met it."""
    answers = run(functools.partial(_caught, fn), items, processes)
    for a in answers:
        if isinstance(a, _Raised):
            raise a.error
    return answers


class _Raised:
    def __init__(self, error: CheckerError):
        self.error = error


def _caught(fn, item):
    try:
        return fn(item)
    except CheckerError as exc:
        return _Raised(exc)


def _take(fn, items: list, tickets: int, done: dict | None = None) -> dict:
    """fn of each ticket's item into `done` until the tickets run out; what was done before a
    raise stays in `done`."""
    done = {} if done is None else done
    while True:
        ticket = os.read(tickets, _TICKET.size)
        if not ticket:
            return done
        (k,) = _TICKET.unpack(ticket)
        done[k] = fn(items[k])


def reply(fd: int, compute):
    """In a forked child: send ("results", compute()) through `fd`, or what it raised, and exit
    once its own children (a prover's workers) have gone."""
    code = 0
    try:
        blob = pickle.dumps(("results", compute()), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException as exc:  # noqa: BLE001 - the parent reports it; nothing may print here
        blob, code = pickle.dumps(("failed", f"failed: {type(exc).__name__}: {exc}")), 1
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(blob)
    finally:
        try:
            children.end()
        finally:
            os._exit(code)  # never the parent's exit handlers, never its buffered output


def answer(fd: int, pid: int) -> tuple:
    """In the parent: ("results", what the child computed), or ("failed", what went wrong: what
    it raised, or how it ended without a whole answer). Reads to the end; a child that answered
    whole is not waited for (its exit, freeing a z3 context and a copy of this process, takes
    milliseconds), only reaped when it has gone (children.answered), at the latest when this
    process ends (children.end)."""
    with os.fdopen(fd, "rb") as fh:
        blob = fh.read()
    try:
        got = pickle.loads(blob)
    except Exception:  # noqa: BLE001 - nothing, or part of an answer: the child died
        status = children.wait(pid)
        if os.WIFSIGNALED(status):
            return "failed", f"ended without an answer (killed by signal {os.WTERMSIG(status)})"
        return "failed", f"ended without an answer (exit status {os.WEXITSTATUS(status)})"
    children.answered(pid)
    return got
