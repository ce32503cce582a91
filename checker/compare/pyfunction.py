"""A user's layout as a Python function (thread, i) -> (row, col) of their own module: the one input
of checker compare that runs code, imported because the user asked for it on the command line,
called only over the fragment's domain (threads x elements, at most a few thousand calls). What
it raises, importing or called, is the input's located error (SpecError, exit 3); a module that is not
there at all is a usage error (exit 2), as a missing input file is."""
from __future__ import annotations

import re

import checker.compare.candidates as candidates
from checker.compare.textfile import MAX_FILE
from checker.bounded import shown
from checker.errors import CheckerError, SourceSpan, SpecError, UsageError


def function(target: str):
    """MODULE:FUNCTION -> the function. MODULE is a dotted name importable from the current
    directory, or a path to a .py file. This imports and runs the user's own code, on request.

    A module that is not there is a usage error (exit 2), as a missing input file is: a .py path
    that does not exist (checked with the other input files, commands/common.check_inputs) or a
    name the import system does not find from the current directory. One that is there but raises
    while imported, or holds no FUNCTION, is malformed input (SpecError, exit 3), located: a
    syntax error at its file:line:col, anything else at the line of the user's file that raised."""
    import importlib
    import importlib.util
    import os
    import sys

    module, sep, name = target.rpartition(":")
    if not sep or not module or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise UsageError(f"--python takes MODULE:FUNCTION (a module name or a .py file, then a function name), "
                         f"found {target!r}")
    source = module if module.endswith(".py") or os.sep in module else None  # the file that runs, once known
    if source is None and not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", module, re.ASCII):
        raise UsageError(f"--python: {shown(module)} is neither a module name (dotted Python names) nor a .py file")
    try:
        if source is not None:
            mod = _load_file(module, module)
        else:
            sys.path.insert(0, os.getcwd())
            try:
                # a module name is found as the import system finds it, and its source read as a
                # file is: bounded (a FIFO or a link to /dev/zero named x.py hung or grew without end)
                found = _find(module)
                origin = getattr(found, "origin", None)
                if isinstance(origin, str) and origin.endswith(".py") and found.submodule_search_locations is None:
                    source = origin  # not a package: a package's __init__ is the import system's to run
                    mod = _load_file(origin, module)
                else:
                    mod = importlib.import_module(module)
            finally:
                sys.path.pop(0)
    except (CheckerError, KeyboardInterrupt):
        raise
    except BaseException as exc:  # noqa: BLE001 - the user's module failing to import is an input error, located
        if isinstance(exc, SyntaxError) and isinstance(exc.filename, str) and exc.lineno:
            # a package's __init__.py, compiled by the import system: the error names its place
            at = SourceSpan(exc.filename, max(1, exc.lineno), max(1, exc.offset or 1))
        else:
            at = _raised_at(exc, source, SourceSpan(source or module, 1, 1))
        raise SpecError(at, f"importing it failed: {type(exc).__name__}: {exc}") from None
    fn = getattr(mod, name, None)
    if not callable(fn):
        home = getattr(mod, "__file__", None)
        raise SpecError(SourceSpan(home if isinstance(home, str) else module, 1, 1),
                        f"has no function {name!r}")
    return fn


def _find(module: str):
    """The import system's spec of a module name, or a UsageError where neither it nor a package it
    is in is there. Finding a.b imports package a: an error a raises, a module it imports that is
    missing included, is a's (raised on, the caller locates it)."""
    import importlib.util

    try:
        found = importlib.util.find_spec(module)
    except ModuleNotFoundError as exc:
        if not isinstance(exc.name, str) or not (module == exc.name or module.startswith(exc.name + ".")):
            raise
        found = None
    if found is None:
        raise UsageError(f"--python: no module named {shown(module)} (a module name is found from the current "
                         "directory and sys.path; a file is named by its path, x.py)")
    return found


def _load_file(path: str, name: str):
    """The user's module from its .py file: the source read as every input is (a regular file, at
    most MAX_FILE bytes), compiled from the bytes read, a syntax error located at its line and
    column, then run: the user's own code, which they asked for on the command line."""
    import importlib.util
    import sys
    import types

    from checker.bounded import read_regular

    data = read_regular(path, MAX_FILE, "module")
    try:
        code = compile(data, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        # an encoding Python does not know is a SyntaxError at offset -1
        at = SourceSpan(path, max(1, exc.lineno or 1), max(1, exc.offset or 1))
        raise SpecError(at, f"not Python: {exc.msg}") from None
    except ValueError as exc:  # a NUL byte, or a source encoding Python does not know
        raise SpecError(SourceSpan(path, 1, 1), f"not Python: {exc}") from None
    mod = types.ModuleType("_checker_user_layout" if name == path else name)
    mod.__file__, mod.__package__ = path, ("" if name == path else name.rpartition(".")[0])
    # the import system finds a module of sys.modules by its __spec__ (find_spec raised ValueError,
    # "__spec__ is None", for a name asked a second time in one process); no file is read for it
    mod.__spec__ = importlib.util.spec_from_file_location(mod.__name__, path)
    sys.modules[mod.__name__] = mod  # as an import does: a dataclass in it looks its module up there
    exec(code, mod.__dict__)  # noqa: S102 - the user's own module, run on their request (docs/references.md)
    return mod


def from_function(fn, threads: int, elements: int, source: str) -> candidates.Table:
    """The function over the fragment's domain, as a table; None from it means "holds nothing"."""
    code = _code_of(fn)
    at = SourceSpan(code.co_filename, code.co_firstlineno, 1) if code is not None else _home(fn, source)
    entries = {}
    for t in range(threads):
        for i in range(elements):
            try:
                got = fn(t, i)
                cell = None if got is None else _cell(got)  # the value's own __len__ or __index__ run here
            except KeyboardInterrupt:
                raise  # the run ends (exit 130)
            # the user's code: anything it raises is reported, located at the point -- SystemExit
            # ended the checker with its own exit code, GeneratorExit and BaseException with a traceback
            except BaseException as exc:  # noqa: BLE001
                where = _raised_at(exc, code.co_filename, at) if code is not None else at
                raise SpecError(where, f"{source}({t}, {i}) raised {type(exc).__name__}: {exc}") from None
            if got is None:
                continue
            if cell is None:
                raise SpecError(at, f"{source}({t}, {i}) returned {str(got)[:60]!r}; expected (row, col), two "
                                f"integers in 0..{candidates.MAX_COORD - 1}, or None")
            entries[(t, i)] = cell
    return candidates.Table(entries, f"the function {source}")


def _code_of(fn):
    """The code that runs when fn is called: a function's own, a callable object's __call__, a
    functools.partial's function (each of them the user's, where a location is theirs to read)."""
    import types

    for candidate in (fn, getattr(type(fn), "__call__", None), getattr(fn, "func", None)):
        code = getattr(candidate, "__code__", None)
        if isinstance(code, types.CodeType):
            return code
    return None


def _home(fn, source: str) -> SourceSpan:
    """Where to say a function without Python code of its own (a builtin such as math.gcd) is:
    its module's file where it has one, else the name it was given by."""
    import sys

    name = getattr(fn, "__module__", None)
    path = getattr(sys.modules.get(name if isinstance(name, str) else ""), "__file__", None)
    return SourceSpan(path if isinstance(path, str) else f"--python {name}:{source}"[:200], 1, 1)


def _raised_at(exc, filename, default):
    """The line of the user's file where `exc` was raised: the innermost frame in `filename`, or,
    where the file is not known (a module the import system ran), in any file that is not the
    import system's or the checker's own; or `default`: the line that failed, not only the
    function's first line."""
    import os

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    line, tb = None, exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name == filename or (filename is None and not name.startswith("<")
                                and not os.path.abspath(name).startswith(here + os.sep)):
            line = SourceSpan(name, tb.tb_lineno, 1)
        tb = tb.tb_next
    return default if line is None else line


def _cell(got):
    """(row, col) from what a user's function returned (ints, numpy integers), or None if it is not one."""
    import operator

    if not isinstance(got, (tuple, list)) or len(got) != 2 or any(isinstance(x, bool) for x in got):
        return None
    try:
        r, c = operator.index(got[0]), operator.index(got[1])
    except TypeError:
        return None
    return (r, c) if 0 <= r < candidates.MAX_COORD and 0 <= c < candidates.MAX_COORD else None
