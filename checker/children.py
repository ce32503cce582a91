"""The processes a command forks, and their end: when the command ends, for any reason, no
process of it remains.

Every fork of the checker goes through fork() here (the workers of checker/workers.py), and each
process owns the children it forked:

- a normal end or an error: end(), which the console script runs on its way out (install()) and
  every forked child runs before it exits (workers.reply), waits for the children that answered
  (they are exiting), kills the others, and reaps them all;
- SIGINT or SIGTERM: the handler that install() sets in the command's process, and that every
  forked child sets for itself, sends SIGTERM to the process's children, SIGKILL to those still
  there after GRACE seconds, reaps them, removes the temporary folders it made (checker/temps.py),
  and exits with 128 + the signal's number: 130 for
  SIGINT, 143 for SIGTERM. A second signal meanwhile waits (it is blocked): the first one's end is
  under way;
- a parent that dies however it dies (SIGKILL, the OOM killer, a handler that cannot run because
  the process is inside z3): on Linux each child asks the kernel for SIGKILL when its parent goes
  (PR_SET_PDEATHSIG), right after the fork, then checks that its parent is still the process that
  forked it, so that a parent gone before the request is not missed. And the command's process
  is the subreaper of its descendants (PR_SET_CHILD_SUBREAPER): a worker whose prover was killed
  comes back to it, not to init, and is reaped with the rest.

A child that answered whole is not waited for at once: its exit (freeing a z3 context and a copy
of the process) takes milliseconds, which overlap the rest of the command; end() reaps it.
It imports ctypes only for prctl, after the fork.
"""
from __future__ import annotations

import atexit
import os
import signal
import sys
import time

GRACE = 0.25  # seconds between SIGTERM and SIGKILL for the children of a signalled process
_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36

# pid -> answered: the children of this process not reaped yet; one that answered is exiting
_CHILDREN: dict = {}
_state = {"top": False, "subreaper": False}
_libc: list = []


def install() -> None:
    """In the command's process (the console script): the signal handlers, and end() at exit.
    Its first fork makes it the subreaper of its descendants. A signal that the process was
    started ignoring (nohup, a background job of a script) stays ignored, as Python leaves it."""
    _handle()
    _state["top"] = True
    atexit.register(end)


def fork() -> int:
    """os.fork(), the child recorded in the parent; in the child, which returns 0: the handlers, a
    SIGKILL when its parent dies, and no children yet. SIGINT and SIGTERM wait meanwhile, so that
    neither finds a child forked but not yet recorded."""
    parent = os.getpid()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        pid = os.fork()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        raise
    if pid == 0:
        _CHILDREN.clear()
        _state.update(top=False, subreaper=False)
        _handle()
        if _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL) and os.getppid() != parent:
            os._exit(1)  # the parent died before the request: nobody is there to answer
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        return 0
    _CHILDREN[pid] = False
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    if _state["top"] and not _state["subreaper"]:
        # after the fork: the child's own children come much later, and the ctypes import overlaps
        _state["subreaper"] = _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    return pid


def answered(pid: int) -> None:
    """`pid` has answered whole and is exiting: reaped once it has gone (now, if it has)."""
    if pid in _CHILDREN:
        _CHILDREN[pid] = True
    reap()


def kill(pid: int) -> None:
    """Not needed after all: SIGKILL now, reaped once it has gone."""
    _signal(pid, signal.SIGKILL)
    answered(pid)


def wait(pid: int) -> int:
    """Wait for `pid` to exit and reap it: its wait status."""
    _CHILDREN.pop(pid, None)
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return 0


def reap() -> None:
    """Collect the children that have exited, without waiting for the others."""
    for pid in list(_CHILDREN):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _CHILDREN.pop(pid, None)


def end(grace: float = 0.0) -> None:
    """End every child of this process and reap it. Without a grace (a normal end), those that
    answered are waited for (they are exiting) and the others are killed at once; with one (a
    signal), all get SIGTERM, and SIGKILL `grace` seconds later. A subreaper then ends and reaps
    its other children: the orphaned workers of a prover that was killed."""
    for pid, done in list(_CHILDREN.items()):
        if grace or not done:
            _signal(pid, signal.SIGTERM if grace else signal.SIGKILL)
    deadline = time.monotonic() + grace
    while grace and _CHILDREN and time.monotonic() < deadline:
        reap()
        if _CHILDREN:
            time.sleep(0.002)
    for pid in list(_CHILDREN):
        if grace:
            _signal(pid, signal.SIGKILL)
        wait(pid)
    if _state["subreaper"] or grace:
        _orphans(time.monotonic() + 2.0)


def _orphans(deadline: float) -> None:
    """Kill and reap the children nobody recorded here: orphans of a killed child (they came here,
    the subreaper), or processes some library started; up to `deadline`."""
    while time.monotonic() < deadline:
        for pid in _listed():
            _signal(pid, signal.SIGKILL)
        try:
            done, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if not done:
            if not _listed():
                return  # none left (or /proc says nothing): what has gone was reaped above
            time.sleep(0.002)


def _listed() -> list:
    """This process's children as Linux lists them (empty where it does not)."""
    pids: list = []
    try:
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/children") as fh:
                pids.extend(map(int, fh.read().split()))
    except OSError:
        pass
    return pids


def _handle() -> None:
    for sig in _SIGNALS:
        if signal.getsignal(sig) != signal.SIG_IGN:
            signal.signal(sig, _on_signal)


def _on_signal(signum, frame):
    signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)  # a second signal waits for this end
    try:
        end(GRACE)
    finally:
        try:
            # os._exit runs no `finally`: the temporary folders go now (after the children that
            # may be reading them), or they would stay in /tmp; none were made if it is not loaded
            temps = sys.modules.get("checker.temps")
            if temps is not None:
                temps.remove_all()
        except Exception:  # noqa: BLE001 - nothing may keep a signalled process from ending
            pass
        os._exit(128 + signum)


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _prctl(option: int, arg: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        if not _libc:
            import ctypes

            _libc.append(ctypes.CDLL(None, use_errno=True))
        return _libc[0].prctl(option, arg, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False
