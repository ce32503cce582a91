"""What several commands share: how a subcommand's parser is made (a description and examples
in its --help), the spec argument (one name, SPEC, everywhere), --fragment, --output, --format,
--jobs; the spec files their paths name, the output paths they were given, one fragment of one spec."""
from __future__ import annotations

import argparse
import os
import re
import textwrap

from checker import outputs
from checker.bounded import shown
from checker.errors import UsageError


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Paragraphs of a description are wrapped; lines indented by two spaces (examples, commands)
    are kept as written."""

    def _fill_text(self, text, width, indent):
        out = []
        for para in textwrap.dedent(text).strip("\n").split("\n\n"):
            if para.startswith("  "):
                out.append(textwrap.indent(para, indent))
            else:
                out.append(textwrap.fill(" ".join(para.split()), width, initial_indent=indent,
                                         subsequent_indent=indent))
        return "\n\n".join(out)


def command(sub, name: str, help: str, description: str, examples: list):
    """A subcommand's parser: `help` for `checker --help`, `description` and `examples` (command
    lines, each with what it does after a `#`) for `checker NAME --help`."""
    lines = "\n".join(f"  {e}" for e in examples)
    return sub.add_parser(name, help=help, description=description, epilog=f"examples:\n\n{lines}",
                          formatter_class=Formatter)


def add_specs(parser, dest: str = "paths", one: bool = False, help: str | None = None) -> None:
    """The spec argument, named SPEC in every command: one spec file, or spec files and folders."""
    if one:
        parser.add_argument(dest, metavar="SPEC", help=help or "a spec file (specs/m16n8k16.yaml)")
    else:
        parser.add_argument(dest, nargs="+", metavar="SPEC",
                            help=help or "spec files, or folders of them (specs/); relations.yaml included")


def add_fragment(parser, required: bool = True, help: str | None = None) -> None:
    parser.add_argument("--fragment", required=required, metavar="ID",
                        help=help or "the fragment's id in the spec (A.f16, C.float; `checker validate` lists them)")


def add_output(parser, help: str | None = None) -> None:
    """--output FILE. A command that writes it itself sets own_output; for every other command
    checker.cli writes what the command prints to FILE instead of stdout."""
    parser.add_argument("--output", metavar="FILE", help=help or "write the output to FILE instead of stdout")


def add_format(parser, choices=("text", "json")) -> None:
    parser.add_argument("--format", choices=list(choices), default=choices[0],
                        help=f"the output's form (default: {choices[0]})")


def integer(text: str) -> int:
    """An integer option's value, in ASCII digits: int() also takes '٣' and '３' as 3, which no
    one types on purpose; a spec's formulas refuse them too (the grammar's NUMBER is [0-9])."""
    if not re.fullmatch(r"-?[0-9]+", text):
        raise argparse.ArgumentTypeError(f"expected an integer in ASCII digits 0-9, found {shown(text, 40)}")
    if len(text.lstrip("-")) > 30:  # no option takes such a number, and int() of a long text is quadratic
        raise argparse.ArgumentTypeError(f"{shown(text, 40)} has {len(text.lstrip('-'))} digits; no option here takes "
                                         "a number of more than 30")
    return int(text)


def add_jobs(parser, help=None) -> None:
    parser.add_argument("--jobs", type=integer, default=min(2, os.cpu_count() or 1), metavar="N",
                        help=help or "worker processes, no more than the cores (default: up to 2)")


def positive_jobs(args) -> None:
    if args.jobs < 1:
        raise UsageError("--jobs takes a positive number")


def check_outputs(args) -> None:
    """Every output path the command was given, checked before it does its work (checker/outputs.py):
    one that cannot be written is a usage error naming it."""
    for option, attr, kind in (("--output", "output", outputs.file), ("--dump-smt", "dump_smt", outputs.folder),
                               ("--out", "out", outputs.folder)):
        path = getattr(args, attr, None)
        if path is not None:
            kind(path, option)


def check_inputs(args) -> None:
    """Every input file an option names exists, before the command does its work: one that does
    not is a usage error (exit 2), as a spec path that does not is; one that exists but cannot be
    read or is malformed is the input's located error (exit 3)."""
    for option, attr in (("--triton", "triton"), ("--table", "table"), ("--cute-copy", "cute_copy"),
                         ("--cute-tmem", "cute_tmem"), ("--known-gaps", "known_gaps")):
        path = getattr(args, attr, None)
        if path is not None and not os.path.lexists(path):
            raise UsageError(f"{option}: no such file: {shown(path)}")
    target = getattr(args, "python", None)  # MODULE:FUNCTION, where MODULE may be a .py file
    module = target.rpartition(":")[0] if isinstance(target, str) else ""
    if (module.endswith(".py") or os.sep in module) and not os.path.lexists(module):
        raise UsageError(f"--python: no such file: {shown(module)}")


def spec_files(paths) -> list:
    from checker.files import UNTRANSCRIBED_FILE, is_untranscribed_file, spec_yaml

    files = spec_yaml(paths)
    if not files and any(is_untranscribed_file(p) for p in paths):
        raise UsageError(f"{UNTRANSCRIBED_FILE} lists the document's figures that no spec transcribes; it is "
                         "no spec: `checker verbatim specs/ --document document/` reads it")
    if not files:
        raise UsageError(f"no spec file (*.yaml) matched {' '.join(paths)}: nothing was checked")
    return files


def gate(files) -> dict:
    """{spec file: its Spec} of `files`, each through validate's gate (checker/spec/checked.py)
    and each relations file through its loader, before the command uses any of them: the first
    one validate refuses raises its located SpecError (exit 3). A command that reads only the
    fragments something else names (conformance's reference entries, the report's pages) would
    otherwise run on a spec whose other fragments, errata or "same as" names are malformed."""
    from checker.files import is_relations_file
    from checker.spec.checked import load_checked
    from checker.theorems.relations import load_relations

    specs = {}
    for path in files:
        if is_relations_file(path):
            load_relations(path)
        else:
            specs[path] = load_checked(path)
    return specs


def one_spec(path: str) -> str:
    """The spec file of a command that takes one (where, eval, export, table, simulate, compare).
    A folder, relations.yaml or a path that does not exist is a usage error (exit 2), as it is for
    the commands that take many: a folder was read as its first file, answering about a spec the
    user never named, and relations.yaml was refused as a spec with an unknown key."""
    from checker.files import is_relations_file

    if os.path.isdir(path):
        raise UsageError(f"{shown(path)} is a folder: this command takes one spec file (specs/m16n8k16.yaml)")
    if is_relations_file(path):
        raise UsageError(f"{shown(path)} holds relations between fragments, not a spec: "
                         f"`checker prove {shown(path)}` proves them")
    return spec_files([path])[0]


def load_fragment(path, fid):
    """(spec, fragment) of fragment `fid` of the spec file; a usage error naming the ones it has."""
    from checker.spec.checked import load_checked

    spec = load_checked(one_spec(path))
    frag = spec.fragment(fid)
    if frag is None:
        from checker.spec.lookup import unknown

        raise UsageError(unknown(spec, path, fid))
    return spec, frag
