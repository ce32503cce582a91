"""Command line: the parser assembled from the subcommands (checker/commands/), exit codes, the
console script. main(argv, stdout, stderr) -> int.

Exit codes: 0 all proved; 1 something refuted or unknown; 2 usage error (no spec file matched
included); 3 a spec could not be loaded or is malformed.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys

from checker import commands
from checker.errors import CheckerError, SpecError, UsageError
from checker.terminal import lines


class _Parser(argparse.ArgumentParser):
    def parse_known_args(self, args=None, namespace=None):
        self._given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message):
        # argparse reports a required option missing before an unknown one, so `--fragmnt A.b1`
        # was answered "required: --fragment": name the mistyped option and the closest one
        import difflib

        given = getattr(self, "_given", [])
        parser = self  # the top parser reports a subcommand's unknown options: look in its parser
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                parser = next((action.choices[t] for t in given if t in action.choices), self)
        known = [o for o in parser._option_string_actions if o.startswith("--")]
        for token in given[:given.index("--")] if "--" in given else given:
            name = token.split("=", 1)[0]
            if name.startswith("--") and name not in known:
                close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
                hint = f": did you mean {close[0]}?" if close else f" ({parser.prog} --help lists the options)"
                if name.lower() == "--n" and "--fragment" in known:  # wgmma's N is in the id, not an option
                    hint = ": a value of N is part of the fragment's id, as in --fragment 'D.float[N=64]'"
                raise UsageError(f"unknown option {name}{hint}")
        raise UsageError(message)

    def _check_value(self, action, value):
        # a mistyped choice (`checker prve`, `--format jsn`) names the closest one
        if action.choices is not None and value not in action.choices:
            import difflib

            names = [str(c) for c in action.choices]
            close = difflib.get_close_matches(str(value), names, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}? " if close else ""
            if isinstance(action, argparse._SubParsersAction):
                raise argparse.ArgumentError(None, f"unknown command {value!r}: {hint}(the commands: "
                                             f"{', '.join(names)}; checker --help says what each does)")
            raise argparse.ArgumentError(action, f"unknown choice {value!r}: {hint}(choose from {', '.join(names)})")
        super()._check_value(action, value)


def _parser() -> argparse.ArgumentParser:
    from checker import __version__
    from checker.commands.common import Formatter

    p = _Parser(prog="checker", formatter_class=Formatter,
                description="Machine-checked specs of the PTX matrix fragment layouts: prove them, query them "
                            "(eval, where, table), export them (CuTe, Triton, C++, Python), report on them. "
                            "`checker COMMAND --help` describes a command, with examples. The same is a Python "
                            "API: `import checker` (docs/api.md).",
                epilog="examples:\n\n  checker prove specs/\n"
                       "  checker where specs/m16n8k16.yaml --fragment C.float --row 9 --col 3\n"
                       "  checker export specs/m16n8k16.yaml --fragment A.f16 --to cute")
    p.add_argument("--version", action="version", version=f"checker (ptx-fragment-checker) {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")
    for command in commands.ALL:
        command.add(sub)
    return p


COMMANDS = {command.NAME: command.run for command in commands.ALL}


def main(argv=None, stdout=None, stderr=None) -> int:
    out, err = stdout or sys.stdout, stderr or sys.stderr
    try:
        try:
            with contextlib.redirect_stdout(out):  # --help and --version print to the command's stdout
                args = _parser().parse_args(argv)
        except SystemExit as exc:  # ... and exit 0
            return exc.code if isinstance(exc.code, int) else 0
        run = COMMANDS[args.command]
        from checker.smt.solver import run_budget  # no z3 import: the module imports it when a query runs

        with run_budget():
            if getattr(args, "output", None) is not None:
                _not_an_input(args)
            if getattr(args, "output", None) is not None and not getattr(args, "own_output", False):
                return _to_file(run, args, err)
            return run(args, out, err)
    except UsageError as exc:
        err.write(lines([f"checker: error: {exc}"]))
        return 2
    except SpecError as exc:
        err.write(lines([str(exc)]))
        return 3
    except CheckerError as exc:
        err.write(lines([f"checker: error: {exc}"]))
        return 1


def _not_an_input(args) -> None:
    """--output is none of the files the command reads (checker/outputs.not_an_input)."""
    from checker import outputs

    inputs = []
    for a in ("spec", "paths", "triton", "table", "cute_copy", "cute_tmem", "known_gaps", "references"):
        given = getattr(args, a, None)
        inputs += given if isinstance(given, list) else [given]
    module = getattr(args, "python", None)
    inputs.append(module.rpartition(":")[0] if isinstance(module, str) else None)
    outputs.not_an_input(args.output, inputs, "--output")


def _to_file(run, args, err) -> int:
    """--output FILE for a command that prints: what it prints goes to FILE (checked writable
    before the command runs, written whole after it)."""
    import io

    from checker import outputs

    outputs.file(args.output, "--output")
    buffer = io.StringIO()
    code = run(args, buffer, err)
    outputs.write_text(args.output, buffer.getvalue(), "--output")
    return code


def entry() -> int:
    """The console script. No process the command forks outlives it (checker/children.py);
    SIGINT and SIGTERM end it with 130 and 143."""
    from checker import children

    children.install()
    try:
        code = main()
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = 1
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        # the reader went away (`checker table ... | head`): say nothing more, as a pipe's writer does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = code or 1
    return code
