"""Where commands write: every output path a command is given is checked here, before the command
does its work, and written here. A path that cannot be written is a usage error (exit 2) in one
line that names the option, the path and what is wrong; never a traceback, never exit 1 (which
means "refuted").

- `file(path, option)`: a file to write (`prove --output`, `diff --output`, `export --output`):
  its folder must exist and be a folder, and the path must not be a folder, nor a FIFO, socket
  or block device (a character device such as /dev/null is fine).
- `folder(path, option)`: a folder to write into, made if missing (`report --out`, `probe --out`,
  `--dump-smt`): it must be a folder where it exists, and its nearest existing parent a folder
  that can be written where it does not.
- `write_text(path, text, option)`: write the file, the same errors reported the same way; it is
  opened non-blocking and checked again, so a FIFO put there since is refused, not waited on.
"""
from __future__ import annotations

import os
import stat

from checker.errors import UsageError

def _nonblocking(path, flags):
    """open()'s opener: non-blocking, so that a FIFO put there since the check fails at once (no
    reader: ENXIO) instead of waiting, and is refused as the check refuses it."""
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0), 0o666)


# an existing output that is not a regular file: a FIFO would hold the command until something
# reads it (forever, in CI), a block device would be overwritten, a socket cannot be opened. A
# character device (/dev/null, a terminal) takes the text without either, so it stays allowed.
def _not_writable_kind(mode: int) -> str | None:
    """What an existing output is, where it is neither a regular file nor a character device."""
    if stat.S_ISREG(mode) or stat.S_ISCHR(mode):
        return None
    from checker.bounded import file_kind

    return file_kind(mode)


def _fail(option: str, path: str, what: str):
    raise UsageError(f"{option} {path}: {what}")


def _why(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower() if isinstance(exc, OSError) else str(exc)


def file(path: str, option: str) -> str:
    """`path`, if a file can be written there; a UsageError saying why not otherwise."""
    if not path:
        _fail(option, repr(path), "an empty path")
    if os.path.isdir(path):
        _fail(option, path, "is a folder; give a file name")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.exists(parent):
        _fail(option, path, f"no such folder {os.path.dirname(path) or parent}")
    if not os.path.isdir(parent):
        _fail(option, path, f"{os.path.dirname(path) or parent} is not a folder")
    if os.path.exists(path):
        kind = _not_writable_kind(os.stat(path).st_mode)
        if kind:
            _fail(option, path, f"is {kind}, not a regular file")
        if not os.access(path, os.W_OK):
            _fail(option, path, "cannot be written (permission denied)")
    elif not os.access(parent, os.W_OK | os.X_OK):
        _fail(option, path, f"cannot write in {os.path.dirname(path) or parent} (permission denied)")
    return path


def not_an_input(path: str, inputs, option: str) -> None:
    """A UsageError where writing `path` would replace an input of the same run (`table SPEC
    --output SPEC` replaced the spec with its table), or put a YAML file inside a folder of specs
    the run reads (`prove DIR --output DIR/out.yaml`: the next `prove DIR` read it as a malformed
    spec)."""
    target = os.path.abspath(path)
    for given in inputs:
        if not isinstance(given, str) or not given:
            continue
        if os.path.isdir(given):
            inside = os.path.commonpath([os.path.abspath(given), target]) == os.path.abspath(given)
            if inside and target.endswith((".yaml", ".yml")):
                _fail(option, path, f"is a YAML file inside {given}, which this command reads: the next run would "
                      "read it too; write it elsewhere")
        elif os.path.exists(path) and os.path.exists(given):
            try:
                same = os.path.samefile(path, given)
            except OSError:
                same = False
            if same:
                _fail(option, path, "is an input of this command: writing it would replace it")


def folder(path: str, option: str) -> str:
    """`path`, if it is a folder that can be written or one that can be made; a UsageError
    otherwise."""
    if not path:
        _fail(option, repr(path), "an empty path")
    if os.path.exists(path):
        if not os.path.isdir(path):
            _fail(option, path, "is a file, not a folder")
        if not os.access(path, os.W_OK | os.X_OK):
            _fail(option, path, "cannot be written (permission denied)")
        return path
    up = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(up):
        up = os.path.dirname(up)
    if not os.path.isdir(up):
        _fail(option, path, f"cannot be made: {up} is a file, not a folder")
    if not os.access(up, os.W_OK | os.X_OK):
        _fail(option, path, f"cannot be made in {up} (permission denied)")
    return path


def write_text(path: str, text: str, option: str, follow_links: bool = True) -> None:
    """Write `text` to the file `path`; what the system refuses is a UsageError (`follow_links`:
    as write_bytes takes it)."""
    write_bytes(path, text.encode("utf-8"), option, follow_links)


def write_bytes(path: str, data: bytes, option: str, follow_links: bool = True) -> None:
    """Write `data` to the file `path`; what the system refuses is a UsageError. `follow_links`
    False: a link at `path` is refused, not written through (a folder in a checkout, whose files a
    pull request writes, may hold one planted to a file outside it)."""
    opener = _nonblocking if follow_links else (
        lambda p, flags: _nonblocking(p, flags | getattr(os, "O_NOFOLLOW", 0)))
    try:
        with open(path, "wb", opener=opener) as fh:
            kind = _not_writable_kind(os.fstat(fh.fileno()).st_mode)
            if kind:
                _fail(option, path, f"is {kind}, not a regular file")
            if hasattr(os, "set_blocking"):  # a terminal: the write goes through whole, not EAGAIN
                os.set_blocking(fh.fileno(), True)
            fh.write(data)
    except OSError as exc:
        if not follow_links and os.path.islink(path):  # O_NOFOLLOW answers ELOOP
            _fail(option, path, "is a symbolic link, not a regular file")
        try:  # a FIFO with no reader answers ENXIO: say what it is
            kind = _not_writable_kind(os.stat(path).st_mode)
        except OSError:
            kind = None
        _fail(option, path, f"is {kind}, not a regular file" if kind else f"cannot be written ({_why(exc)})")


def make_folder(path: str, option: str) -> None:
    """Make the folder `path` (and its parents); what the system refuses is a UsageError."""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        _fail(option, path, f"cannot be made ({_why(exc)})")
