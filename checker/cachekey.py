"""The secret that authenticates the result cache's entries (checker/cache.py).

The cache key is a hash of public things (the inputs, the installed checker and libraries): the
same on every machine with the same install. Cache folders are hostile (a CI cache is restored
from another job; another user may write a shared one), so an entry that merely has the right key
and shape could say PROVED for a refuted spec. Each entry therefore carries an HMAC-SHA256 under
a per-user secret that never lives in the cache folder: a forged or copied entry does not verify,
and is a miss.

Where: $CHECKER_CACHE_KEY_FILE, else $XDG_CONFIG_HOME/ptx-fragment-checker/cache.key, else
~/.config/ptx-fragment-checker/cache.key. It is made on first use (32 bytes of `secrets`, mode
0600, written to a private temporary name and linked into place, so two runs starting at once
agree on one key and neither reads a half-written one). A key file that is not a regular file
(a link included), not owned by this user, readable or writable by anyone else, or not exactly
32 bytes is not used, nor replaced: then the cache is simply not used (no entry is read or
written), and proving works as without it.
"""
from __future__ import annotations

import os
import secrets
import stat

SIZE = 32
ENV = "CHECKER_CACHE_KEY_FILE"


def path() -> str:
    if os.environ.get(ENV):
        return os.environ[ENV]
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "ptx-fragment-checker", "cache.key")


def secret() -> bytes | None:
    """The key, made if there is none yet; None where it cannot be had safely."""
    where = path()
    try:
        os.lstat(where)
    except FileNotFoundError:
        _make(where)
    except OSError:
        return None
    return _read(where)


def _read(where: str) -> bytes | None:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(where, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        # anyone else able to read it could sign entries; able to write it, choose the key
        if (not stat.S_ISREG(st.st_mode) or st.st_mode & 0o077 or st.st_size != SIZE
                or (hasattr(os, "geteuid") and st.st_uid != os.geteuid())):
            return None
        data = os.read(fd, SIZE + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) == SIZE else None


def _make(where: str) -> None:
    """A new key at `where`, unless one appears there first (os.link never replaces a file)."""
    folder = os.path.dirname(where) or "."
    tmp = os.path.join(folder, f".{os.path.basename(where)}.{os.getpid()}.{secrets.token_hex(8)}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(secrets.token_bytes(SIZE))
        os.link(tmp, where)
    except OSError:
        pass  # another run made it first (it is read next), or the folder is not writable: no cache
    finally:
        try:
            os.remove(tmp)
        except OSError:
            pass
