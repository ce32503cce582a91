"""Command line: the parser assembled from the subcommands (checker/commands/), exit codes, the
console script. main(argv, stdout, stderr) -> int.

Exit codes: 0 all proved; 1 something refuted or unknown; 2 usage error (no spec file matched
included); 3 a spec could not be loaded or is malformed.
"""
from __future__ import annotations

import argparse
import atexit
import gc
import os
import sys

from checker import commands
from checker.errors import CheckerError, SpecError, UsageError


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="checker", description="Prove the PTX mma fragment layouts of spec files.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for command in commands.ALL:
        command.add(sub)
    return p


COMMANDS = {command.NAME: command.run for command in commands.ALL}


def main(argv=None, stdout=None, stderr=None) -> int:
    out, err = stdout or sys.stdout, stderr or sys.stderr
    try:
        args = _parser().parse_args(argv)
        return COMMANDS[args.command](args, out, err)
    except UsageError as exc:
        err.write(f"checker: error: {exc}\n")
        return 2
    except SpecError as exc:
        err.write(f"{exc}\n")
        return 3
    except CheckerError as exc:
        err.write(f"checker: error: {exc}\n")
        return 1


def entry() -> int:
    # A run allocates millions of small lists and tuples and almost no cycles: with Python's default
    # threshold (700) the cycle collector ran about 250 times in a seed proof and took a tenth of
    # its CPU time (measured with gc.callbacks), finding nothing. Refcounting frees the rest; mypy
    # makes the same choice.
    gc.set_threshold(200_000, 30, 30)
    from checker import children, launch

    children.install()  # no process of the command outlives it; SIGINT/SIGTERM exit 130/143
    launch.prestart(sys.argv[1:])
    try:
        code = main()
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = 1
    finally:
        launch.stop_early()
    _leave(code)
    return code  # not reached


def _leave(code: int):
    """Exit without tearing the interpreter down: freeing z3's contexts and every object of a run
    one at a time costs about 0.15 s, more than proving a seed spec. Output is flushed and exit
    handlers run first; every file the command wrote was closed inside it."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        code = code or 1
    atexit._run_exitfuncs()
    os._exit(code)
