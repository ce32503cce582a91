"""The C functions of z3 the checker calls, bound with ctypes.

The checker talks to z3 in SMT-LIB text only (solver.py): it needs a context and
Z3_eval_smtlib2_string. Importing z3's Python API declares the ctypes signature of every
function of the C API (about a thousand) and builds its classes: about 40 ms, as long as all
the rest of a prover process's imports, and on the critical path of every proof. So this
module loads the library the z3 package ships (z3/lib, found without importing the package)
and declares only the seven functions it calls. Where the package ships none there (a z3 built
from source and installed elsewhere), z3's own binding is imported instead, which knows where
its library is; the two answer alike (a test holds them to it).

Errors: z3's default error handler prints and exits the process. Contexts made here have none,
so an error is read back from Z3_get_error_code after each call and raised as Z3Error.
"""
from __future__ import annotations

import ctypes
import glob
import os
import sys
from importlib.util import find_spec

from checker.errors import CheckerError


class Z3Error(CheckerError):
    """z3 rejected a command: a bug in the checker's SMT-LIB text, never a verdict."""


def _shipped() -> str | None:
    """The library in the z3 package's lib folder, as the z3-solver wheels install it."""
    spec = find_spec("z3")  # finds the package without running it
    folders = list(spec.submodule_search_locations or []) if spec else []
    ext = "dll" if sys.platform in ("win32", "cygwin") else "dylib" if sys.platform == "darwin" else "so"
    for folder in folders:
        # libz3.so.4.15 before libz3.so on Linux, as z3's own binding looks: the same file's pages
        found = sorted(glob.glob(os.path.join(folder, "lib", f"libz3.{ext}*")), key=len, reverse=True)
        if found:
            return found[0]
    return None


class _Library:
    """The shipped library, through the seven functions declared here."""

    def __init__(self, lib: ctypes.CDLL):
        ptr = ctypes.c_void_p
        for name, restype, argtypes in (
                ("Z3_mk_config", ptr, []), ("Z3_del_config", None, [ptr]), ("Z3_mk_context_rc", ptr, [ptr]),
                ("Z3_set_error_handler", None, [ptr, ptr]), ("Z3_get_error_code", ctypes.c_uint, [ptr]),
                ("Z3_get_error_msg", ctypes.c_char_p, [ptr, ctypes.c_uint]),
                ("Z3_eval_smtlib2_string", ctypes.c_char_p, [ptr, ctypes.c_char_p])):
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
        self.lib = lib

    def context(self):
        config = self.lib.Z3_mk_config()
        ctx = self.lib.Z3_mk_context_rc(config)
        self.lib.Z3_del_config(config)
        self.lib.Z3_set_error_handler(ctx, None)  # no handler: errors are read back, never an exit
        return ctx

    def eval(self, ctx, text: str) -> str:
        out = self.lib.Z3_eval_smtlib2_string(ctx, text.encode())
        code = self.lib.Z3_get_error_code(ctx)
        if code:
            raise Z3Error((self.lib.Z3_get_error_msg(ctx, code) or b"").decode(errors="replace"))
        return (out or b"").decode()


class _Binding:
    """z3's own Python binding, where the package ships no library of its own folder."""

    def __init__(self):
        import z3

        self.z3 = z3
        self.contexts: list = []  # a z3.Context deletes its C context when collected: kept

    def context(self):
        self.contexts.append(self.z3.Context())
        return self.contexts[-1].ref()

    def eval(self, ctx, text: str) -> str:
        try:
            return self.z3.Z3_eval_smtlib2_string(ctx, text)
        except self.z3.Z3Exception as exc:
            raise Z3Error(str(exc.value.decode(errors="replace") if isinstance(exc.value, bytes) else exc)) from None


def _load():
    path = _shipped()
    if path is not None:
        try:
            return _Library(ctypes.CDLL(path))
        except (OSError, AttributeError):
            pass  # z3's own binding finds its library, or says why not
    return _Binding()


_backend = None


def _use():
    global _backend
    if _backend is None:
        _backend = _load()
    return _backend


def library() -> str:
    """Where z3 comes from in this process: a library file, or z3's own binding."""
    b = _use()
    return b.lib._name if isinstance(b, _Library) else "z3's Python binding"


def context():
    """A new context, kept for the process's life (it ends with os._exit)."""
    return _use().context()


def eval_smtlib2(ctx, text: str) -> str:
    """What z3's command interpreter prints for `text`, run in `ctx`."""
    return _use().eval(ctx, text)
