"""Temporary folders that no end of the command leaves behind.

`folder()` makes a fresh private folder (tempfile.mkdtemp: mode 0700, a name nobody else can have
planted anything under) and removes it when the block ends, normally or by an exception. A
SIGINT or SIGTERM ends the command with os._exit (checker/children.py), which runs no `finally`:
the signal handler calls `remove_all()`, so a signalled `checker diff` leaves no copy of a spec
(or of a hostile 8 GB file, had it been copied) in /tmp either.

Each folder is recorded with the process that made it: a forked worker inherits the record but
removes only its own folders (its parent's are still in use, and the parent removes them).

`write_new()` writes a file into such a folder without following a link and without replacing
anything already there (O_CREAT | O_EXCL | O_NOFOLLOW): a name that is already taken is an error,
never a write through it.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile

_MADE: dict = {}  # path -> pid of the process that made it
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def folder(prefix: str):
    # SIGINT and SIGTERM wait while the folder is made and recorded: one arriving in between
    # would find a folder on disk that the handler does not know of (or, on tempfile's first
    # use, the file it writes and removes to test the folder, left behind by os._exit)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        path = tempfile.mkdtemp(prefix=prefix)
        _MADE[path] = os.getpid()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    try:
        yield path
    finally:
        # removed before it is forgotten: a signal meanwhile removes it again, never leaves it
        shutil.rmtree(path, ignore_errors=True)
        _MADE.pop(path, None)


def remove_all() -> None:
    """Remove this process's temporary folders now (a signal is ending it)."""
    me = os.getpid()
    for path, pid in list(_MADE.items()):
        if pid == me:
            shutil.rmtree(path, ignore_errors=True)
            _MADE.pop(path, None)


def write_new(path: str, data: bytes) -> None:
    """`data` into a new file at `path` (mode 0600); OSError if the name exists or is a link."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
