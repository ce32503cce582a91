"""Bounded reads of untrusted inputs, and bounded echoes of what they contain.

Specs, relations files, dumps and files from git history arrive in pull requests. Every read of
one goes through `read_regular` (or `fingerprint`, for a cache key), which

- refuses anything but a regular file (a FIFO, a device, a socket, a folder; a symlink counts as
  what it points at, so a link to /dev/zero is refused) before opening it, and again on the
  opened descriptor, so a file swapped in between is refused too; a FIFO is opened non-blocking
  and never waited on;
- reads at most `limit + 1` bytes, whatever the file's size claims to be, and refuses the file
  when there are more: nothing hashes, decodes or parses an input before it is bounded.

`git_blob` reads one file from git history the same way (the size asked of git first, the output
read with a limit, git killed on excess or time-out), and `shown` cuts an echoed value short.
"""
from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import threading

from checker.errors import CheckerError, SourceSpan, SpecError

SHOWN = 80  # characters of an input's value echoed in a message
MAX_ELEMENTS = 1024  # elements one lane holds in one fragment: a list's names, ellipses expanded, or
#                      registers x per register (the document's most: 128, m16n8k256 A.b1)
_BLOCK = 1 << 16


def shown(value, limit: int = SHOWN, quote: bool = True) -> str:
    """`value` as a message quotes it (repr for text, unless `quote` is false), cut to `limit`
    characters plus '…'."""
    text = repr(value) if isinstance(value, str) and quote else str(value)
    return text if len(text) <= limit else text[:limit] + "…"


def file_kind(mode: int) -> str:
    """What a path that is not a regular file is, in words: for the errors that refuse it."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


class Refused(CheckerError):
    """An input that is not read: the reason, in words."""


def _read(path: str, limit: int, follow: bool = True) -> bytes:
    """`follow` False: a symlink itself is refused (the cache writes its entries as plain files)."""
    try:
        # following a symlink, what it points at is what would be read
        st = os.stat(path) if follow else os.lstat(path)
    except OSError as exc:
        raise Refused(f"cannot read file: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise Refused(f"not a regular file: it is {file_kind(st.st_mode)}")
    if st.st_size > limit:
        raise Refused(f"file is larger than {limit} bytes")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise Refused(f"cannot read file: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # swapped for something else since the stat above
            raise Refused(f"not a regular file: it is {file_kind(mode)}")
        chunks, got = [], 0
        while got <= limit:
            block = os.read(fd, min(_BLOCK, limit + 1 - got))
            if not block:
                break
            chunks.append(block)
            got += len(block)
    except OSError as exc:
        raise Refused(f"cannot read file: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if got > limit:
        raise Refused(f"file is larger than {limit} bytes")
    return b"".join(chunks)


def read_regular(path: str, limit: int, what: str = "file", follow: bool = True) -> bytes:
    """At most `limit` bytes of the regular file at `path`, or a SpecError located at path:1:1."""
    try:
        return _read(path, limit, follow)
    except Refused as exc:
        message = str(exc)
        if what != "file":
            message = message.replace("file is", f"{what} is", 1)
        raise SpecError(SourceSpan(path, 1, 1), message) from None


def fingerprint(path: str, limit: int) -> bytes:
    """A digest of the file for a cache key, read with the same bound; never blocks or raises for
    a hostile file: what cannot be read is keyed by the reason (the loader reports it, located)."""
    try:
        return hashlib.sha256(_read(path, limit)).digest()
    except Refused as exc:
        return b"refused: " + str(exc).encode()


def same_bytes(a: str, b: str, limit: int) -> bool:
    """Whether two files hold the same bytes; False where either cannot be read within `limit`."""
    try:
        return _read(a, limit) == _read(b, limit)
    except Refused:
        return False


class GitError(CheckerError):
    """git failed or refused: its message, cut short."""


def run_bounded(argv: list, cwd: str, limit: int, timeout: float) -> bytes:
    """stdout of a command, at most `limit` bytes; the command is killed past the limit or the time.
    Raises GitError (exit status and stderr), FileNotFoundError when there is no such program."""
    import tempfile

    with tempfile.TemporaryFile() as errf:
        proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errf)
        fired = threading.Event()

        def _kill():
            fired.set()
            proc.kill()

        timer = threading.Timer(timeout, _kill)
        timer.start()
        chunks, got, excess = [], 0, False
        try:
            while True:
                block = proc.stdout.read1(_BLOCK) if hasattr(proc.stdout, "read1") else proc.stdout.read(_BLOCK)
                if not block:
                    break
                chunks.append(block)
                got += len(block)
                if got > limit:
                    excess = True
                    proc.kill()
                    break
        finally:
            proc.stdout.close()
            rc = proc.wait()
            timer.cancel()
            timed_out = fired.is_set() and not excess
        errf.seek(0)
        stderr = errf.read(4096).decode("utf-8", "replace").strip()
    if excess:
        raise GitError(f"output is larger than {limit} bytes")
    if timed_out:
        raise GitError(f"did not finish within {timeout:g} s")
    if rc != 0:
        raise GitError(stderr[:300] or f"exit status {rc}")
    return b"".join(chunks)
