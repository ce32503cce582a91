"""The subcommands of `checker`, one module each: NAME, add(subparsers) for its arguments, and
run(args, out, err) -> exit code. Each imports what its work needs only when it runs, so that
parsing a command line (and a `prove` that the cache answers) stays cheap."""
from checker.commands import (compare, conformance, crosscheck, diff, errata, eval as eval_, export, mutate, probe,
                              prove, report, schema, simulate, table, validate, verbatim, where)

# in the order `checker --help` lists them
ALL = (prove, validate, eval_, table, simulate, probe, crosscheck, diff, report, errata, mutate, export, where, compare,
       conformance, verbatim, schema)
