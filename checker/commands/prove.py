"""`checker prove`: prove every property of every fragment of the files given and their scope;
an identical earlier run's results come from the cache."""
from __future__ import annotations

import json
import os
import time

from checker import outputs
from checker.options import Options
from checker.commands.common import add_format, add_jobs, add_output, add_specs, check_outputs, command, positive_jobs, \
    spec_files

NAME = "prove"


def add(sub) -> None:
    pr = command(sub, NAME, "prove every property of every fragment",
                 "Prove that every fragment of the specs given is well defined, in range, injective and covers "
                 "its matrix, with z3 and the plain-Python engine (which must agree), that every erratum's "
                 "printed text fails as declared, and every theorem and relation in their scope. Exit 0: all "
                 "proved; 1: something refuted or unknown; 2: usage; 3: a malformed spec.",
                 ["checker prove specs/                      # the whole chapter",
                  "checker prove specs/m16n8k256.yaml        # one file and its scope",
                  "checker prove specs/ --format sarif --output proof.sarif"])
    add_specs(pr)
    add_format(pr, ("text", "json", "sarif", "junit"))
    add_output(pr, "write the report here instead of stdout (the text summary still goes to stdout)")
    pr.set_defaults(own_output=True)
    pr.add_argument("--no-cache", action="store_true",
                    help="prove again even when an identical run's results are cached (see README: Speed)")
    pr.add_argument("--no-cross-check", action="store_true",
                    help="skip the plain-Python engine that checks every z3 verdict")
    pr.add_argument("--dump-smt", metavar="DIR", help="write every named z3 query as SMT-LIB")
    add_jobs(pr, "worker processes, no more than the cores (default: up to 2); 1 proves in this process")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ptx-fragment-checker")
    except PackageNotFoundError:  # pragma: no cover - a source tree on sys.path
        return "source"


def proved(sc, opts: Options, cache_ok: bool = True) -> tuple:
    """(results, from the cache?) of proving a scope (checker/scope.py): what `checker prove` of
    its files gives, and what `checker mutate` asks of a spec before it measures mutants."""
    # a hit imports neither z3 nor lark nor jsonschema: that is where its speed comes from
    where = k = results = None
    if cache_ok:
        from checker import cache

        where = cache.folder()
        k = cache.key(sc.files, {"cross_check": opts.cross_check, "scope": sc.key()}) if where else None
        results = cache.load(where, k) if k else None
    cached = results is not None
    if not cached:
        from checker.prover import prove_paths

        reads = cache.recording() if k else None  # every input the proof reads (checker/recording.py)
        results = prove_paths(sc.files, opts)
        if k:
            cache.store(where, k, results, reads.stop())
    if sc.added:  # a theorem of a spec the scope added that fails is pointed at the file given
        from checker.theorems.relations import toward

        results = toward(results, {os.path.splitext(os.path.basename(f))[0] for f in sc.given})
    return results, cached


def run(args, out, err) -> int:
    positive_jobs(args)
    check_outputs(args)
    if args.dump_smt:  # made now, so a folder the system will not make is said once, before any proof
        outputs.make_folder(args.dump_smt, "--dump-smt")
    from checker import scope

    t0 = time.perf_counter()
    sc = scope.widen(spec_files(args.paths))  # what proving these files proves (checker/scope.py)
    files = sc.files
    opts = Options(cross_check=not args.no_cross_check, dump_smt=args.dump_smt, jobs=args.jobs)
    results, cached = proved(sc, opts, cache_ok=not (args.no_cache or args.dump_smt))
    from checker.files import is_relations_file
    from checker.report.text import prove_report
    from checker.results import exit_code, summary

    seconds = time.perf_counter() - t0
    text = prove_report(results, seconds, len(files), sum(map(is_relations_file, files)), cached, sc.note())
    if args.format == "json":
        report = json.dumps({"summary": summary(results) | {"specs": len(files), "seconds": round(seconds, 4),
                                                            "cached": cached},
                             "results": [r.as_json() for r in results]}, indent=1) + "\n"
    elif args.format == "sarif":
        from checker.report.sarif import render

        report = json.dumps(render(results, _version()), indent=1) + "\n"
    elif args.format == "junit":
        from checker.report.junit import render

        report = render(results, seconds)
    else:
        report = text
    if args.output:
        outputs.write_text(args.output, report, "--output")
        if args.format != "text":
            out.write(text)
    else:
        out.write(report)
    return exit_code(results)
