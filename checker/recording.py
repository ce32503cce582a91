"""What a proof read, for the result cache (checker/cache.py): every input file goes through here.

`read_regular` is checker.bounded's reader (a regular file, at most `limit` bytes) that also
records what it read: the path as the proof named it, the limit, and the SHA-256 of the bytes (or
the reason the file was refused). `isfile` and `exists` record the answer of a question about a
file that may not be there (a `same_as` neighbour, a spec a relation names): a result can depend
on a file's absence as much as on its bytes. A cached result is replayed only when every record
still holds (`still_holds`), so the cache key covers every byte any proof read by construction,
whichever part of the checker read it, not by a list of the files each command is known to read.

A proof runs in several processes (the command's, and the workers it forks). They share one log: an anonymous file, opened before the first fork (`share`) and
inherited by every process forked after, written with O_APPEND, one record per write(), so
records from several processes never interleave. `start` notes where the log ends; `stop` reads
back what was appended since. Where there is no log (nothing recording), the readers only read.
"""
from __future__ import annotations

import hashlib
import json
import os

MAX_RECORDS = 10_000  # a proof of the 24 seed specs makes 44
MAX_LIMIT = 1 << 26  # the largest read a record may ask for when it is checked again
MAX_CHECKED = 1 << 26  # bytes read to check an entry's records again, all together (the seed specs: 0.2 MB)
MAX_PATH = 4096
_LOG: list = []  # [fd] once shared


def share() -> int | None:
    """The log's descriptor, opened now if it is not yet: call before forking a proof's process."""
    if not _LOG:
        try:
            if hasattr(os, "memfd_create"):
                fd = os.memfd_create("checker-reads", getattr(os, "MFD_CLOEXEC", 0))
                import fcntl

                fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
            else:  # pragma: no cover - not Linux
                import tempfile

                with tempfile.TemporaryFile(mode="a+b") as fh:
                    fd = os.dup(fh.fileno())
        except OSError:
            return None
        _LOG.append(fd)
    return _LOG[0]


def _note(record: list) -> None:
    if not _LOG:
        return
    line = json.dumps(record, ensure_ascii=True, separators=(",", ":")).encode() + b"\n"
    try:
        os.write(_LOG[0], line)  # O_APPEND: one write is one record, whole, at the end
    except OSError:
        pass  # stop() then finds a record missing only if it is cut: a torn line is a miss


def read_regular(path: str, limit: int, what: str = "file") -> bytes:
    """checker.bounded.read_regular, recorded."""
    from checker.bounded import read_regular as read
    from checker.errors import SpecError

    try:
        data = read(path, limit, what)
    except SpecError as exc:
        _note(["refused", str(path), limit, what, exc.message])
        raise
    _note(["read", str(path), limit, what, hashlib.sha256(data).hexdigest()])
    return data


def isfile(path: str) -> bool:
    answer = os.path.isfile(path)
    _note(["isfile", str(path), answer])
    return answer


def exists(path: str) -> bool:
    answer = os.path.exists(path)
    _note(["exists", str(path), answer])
    return answer


class Recording:
    """The records appended to the log from start() on, by this process and its children."""

    def __init__(self, fd: int | None):
        self.fd = fd
        self.offset = os.fstat(fd).st_size if fd is not None else 0

    def stop(self) -> list | None:
        """The records, each once, in the order first made; None where they cannot be told
        (no log, a torn or foreign line, too many): then nothing may be cached."""
        if self.fd is None:
            return None
        try:
            end = os.fstat(self.fd).st_size
            raw = os.pread(self.fd, end - self.offset, self.offset)
        except OSError:
            return None
        if raw and not raw.endswith(b"\n"):
            return None
        out, seen = [], set()
        for line in raw.splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                return None
            if not _valid(record):
                return None
            k = json.dumps(record)
            if k not in seen:
                seen.add(k)
                out.append(record)
        return out if len(out) <= MAX_RECORDS else None


def start() -> Recording:
    return Recording(share())


def _valid(r) -> bool:
    """The shape of a record, checked before anything acts on it (cache entries are hostile)."""
    if not isinstance(r, list) or not r or not isinstance(r[0], str):
        return False
    if len(r) < 2 or not isinstance(r[1], str) or not 0 < len(r[1]) <= MAX_PATH or "\0" in r[1]:
        return False
    kind = r[0]
    if kind in ("isfile", "exists"):
        return len(r) == 3 and isinstance(r[2], bool)
    if kind in ("read", "refused"):
        return (len(r) == 5 and type(r[2]) is int and 0 <= r[2] <= MAX_LIMIT and isinstance(r[3], str)
                and len(r[3]) <= 64 and isinstance(r[4], str) and len(r[4]) <= 4096)
    return False


def still_holds(records) -> bool:
    """Whether every record would be made again now: each file read holds the same bytes (read with
    the same bound), each refused file is refused for the same reason, each question about a file
    has the same answer. Anything malformed, missing, changed or not a regular file: False.

    The work is bounded whatever the records say (an entry that verifies is still checked as if
    hostile): every record's shape is checked before any file is touched, each distinct question
    is asked once (an entry repeating a 64 MiB read 20,000 times reads it once), and once the
    files read add up to more than MAX_CHECKED bytes the answer is False: a miss, which only costs
    a proof."""
    from checker.bounded import read_regular as read
    from checker.errors import SpecError

    if not isinstance(records, list) or len(records) > MAX_RECORDS or not all(_valid(r) for r in records):
        return False
    budget = MAX_CHECKED
    now: dict = {}  # the question -> the record it makes now
    for r in records:
        kind, path = r[0], r[1]
        question = (kind, path) if kind in ("isfile", "exists") else ("read", path, r[2], r[3])
        if question not in now:
            if kind == "isfile":
                now[question] = [kind, path, os.path.isfile(path)]
            elif kind == "exists":
                now[question] = [kind, path, os.path.exists(path)]
            else:
                try:
                    data = read(path, r[2], r[3])
                except SpecError as exc:
                    now[question] = ["refused", path, r[2], r[3], exc.message]
                except (OSError, ValueError):
                    return False
                else:
                    budget -= len(data)
                    if budget < 0:
                        return False
                    now[question] = ["read", path, r[2], r[3], hashlib.sha256(data).hexdigest()]
        if now[question] != r:
            return False
    return True
