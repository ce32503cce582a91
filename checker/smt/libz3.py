"""z3's SMT-LIB 2 interpreter: the library the z3 package installed, opened from that package's
folder and nowhere else, and the few functions of its C API the checker calls.

Where the library is looked for is a safety rule. z3's own loader (z3/z3core.py) tries the current
directory first, then every folder of PATH and PYTHONPATH: `checker prove specs/` run in a checkout
whose root held a file named `libz3.so.<version>` ran that file's code, before any spec was read.
Here the library is the one in the z3 package's `lib` folder, in the package's own folder, or in
`sys.prefix/lib` (where conda puts it): places the installation writes, never the folder a command
runs in.

It is also the prover's cheapest start: importing z3's Python API declares every function of the
C API (z3core.py) and builds its object layer (z3.py), about 30 ms in each process that solves,
each forked worker included, of which the checker uses one call. See docs/speed.md, "z3's
library, from the package's folder only".

Where none of those folders holds it (z3 not installed from z3-solver, the project's declared
dependency), proving says so, as a checker error; it never falls back to z3's loader.
"""
from __future__ import annotations

import importlib.util
import os
import sys

from checker.errors import CheckerError


class Z3Error(CheckerError):
    """z3 rejected a command: a bug in the checker's SMT-LIB text, never a verdict."""


_OK = 0  # Z3_OK
_PRINT_SMTLIB2_COMPLIANT = 2  # Z3_PRINT_SMTLIB2_COMPLIANT: what z3's Python API sets on its contexts


def _names(folder: str) -> list:
    """The library's names in `folder`, as z3's loader names it: on Linux the unversioned name,
    then a versioned one (`libz3.so.4.13`)."""
    if sys.platform in ("win32", "cygwin"):
        return ["libz3.dll"]
    if sys.platform == "darwin":
        return ["libz3.dylib"]
    try:
        versioned = sorted(n for n in os.listdir(folder) if n.startswith("libz3.so."))
    except OSError:
        versioned = []
    return ["libz3.so", *versioned]


def _folders() -> list:
    """Where the installation puts the library: the z3 package's `lib` folder (z3-solver's wheels
    and source builds), the package's own folder, `sys.prefix/lib` (conda's z3)."""
    spec = importlib.util.find_spec("z3")  # finds the package without running it
    folders = []
    for root in (spec.submodule_search_locations or []) if spec else []:
        folders += [os.path.join(root, "lib"), root]
    return [os.path.abspath(f) for f in [*folders, os.path.join(sys.prefix, "lib")]]


def candidates() -> list:
    """The files the library may be opened from, in order: never the working folder, PATH or
    PYTHONPATH, which z3's own loader searches."""
    out = []
    for folder in _folders():
        for name in _names(folder):
            path = os.path.join(folder, name)
            if os.path.isfile(path) and path not in out:
                out.append(path)
    return out


class _Library:
    """The C API's functions the interpreter needs, declared once per process (ctypes is imported
    here: a proof the cache answers imports this module and solves nothing)."""

    def __init__(self, path: str):
        import ctypes

        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            raise CheckerError(f"z3's library {path} cannot be opened: {exc}") from None
        self.path = path
        # z3 calls a context's error handler on every error, and its default handler exits the
        # process: this one does nothing; the error code is read after each call (as z3core.py does)
        handler = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint)
        self.ignore = handler(lambda ctx, code: None)
        try:
            self._declare(lib, ctypes, handler)
        except AttributeError as exc:  # a shared object, but not z3's
            raise CheckerError(f"{path} is not z3's library: {exc}") from None
        self.lib = lib

    @staticmethod
    def _declare(lib, ctypes, handler):
        lib.Z3_mk_config.restype = ctypes.c_void_p
        lib.Z3_mk_config.argtypes = []
        lib.Z3_del_config.argtypes = [ctypes.c_void_p]
        lib.Z3_mk_context_rc.restype = ctypes.c_void_p
        lib.Z3_mk_context_rc.argtypes = [ctypes.c_void_p]
        lib.Z3_set_error_handler.restype = None
        lib.Z3_set_error_handler.argtypes = [ctypes.c_void_p, handler]
        lib.Z3_set_ast_print_mode.argtypes = [ctypes.c_void_p, ctypes.c_uint]
        lib.Z3_eval_smtlib2_string.restype = ctypes.c_char_p
        lib.Z3_eval_smtlib2_string.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.Z3_get_error_code.restype = ctypes.c_uint
        lib.Z3_get_error_code.argtypes = [ctypes.c_void_p]
        lib.Z3_get_error_msg.restype = ctypes.c_char_p
        lib.Z3_get_error_msg.argtypes = [ctypes.c_void_p, ctypes.c_uint]


class _Context:
    """A context of the library opened from the package's folder. It is never deleted: a process
    keeps two (solver.py) until it ends, and the system frees them faster than z3's teardown did."""

    def __init__(self, library: _Library):
        lib = library.lib
        self.lib = lib
        config = lib.Z3_mk_config()
        self.ref = lib.Z3_mk_context_rc(config)
        lib.Z3_set_error_handler(self.ref, library.ignore)
        lib.Z3_set_ast_print_mode(self.ref, _PRINT_SMTLIB2_COMPLIANT)
        lib.Z3_del_config(config)
        self._check()

    def run(self, text: str) -> str:
        out = self.lib.Z3_eval_smtlib2_string(self.ref, text.encode("utf-8"))
        self._check()
        return (out or b"").decode("utf-8", errors="replace")

    def _check(self):
        code = self.lib.Z3_get_error_code(self.ref)
        if code != _OK:
            raise Z3Error((self.lib.Z3_get_error_msg(self.ref, code) or b"").decode("utf-8", errors="replace"))


_LIBRARY: list = []  # [the _Library]: opened once per process, at its first context


def context() -> _Context:
    """A new z3 context: run(text) gives z3's answer to SMT-LIB text, or raises Z3Error where z3
    rejects it."""
    if not _LIBRARY:
        found = candidates()
        if not found:
            raise CheckerError("z3's library (libz3) is not where the z3-solver package installs it: "
                               f"looked in {', '.join(_folders()) or 'no z3 package'}; "
                               "install z3-solver (pip install z3-solver)")
        _LIBRARY.append(_Library(found[0]))
    return _Context(_LIBRARY[0])


def opened() -> str | None:
    """The path of the library this process opened (None before its first context)."""
    return _LIBRARY[0].path if _LIBRARY else None
