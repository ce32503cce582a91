"""`checker mutate`: the mutation campaign over the specs given, judged by the relations in their
scope: per spec what killed what, and every survivor (checker/mutate/render.py as text)."""
from __future__ import annotations

import json
import time

from checker.commands.common import (add_format, add_jobs, add_output, add_specs, check_inputs, command, positive_jobs,
                                     spec_files)
from checker.errors import UsageError

NAME = "mutate"


def add(sub) -> None:
    mu = command(sub, NAME, "the mutation campaign: which wrong layouts would the theorems let through?",
                 "Make small wrong edits of each spec's formulas (mutants) and say which of them the "
                 "properties, theorems and relations in scope kill; every survivor is listed. The specs are "
                 "proved first: where they fail, the failures are printed as prove prints them and nothing is "
                 "mutated (exit 1, or 3 for a malformed spec). Exit 1 on a survivor that --known-gaps does not "
                 "accept (docs/mutation.md).",
                 ["checker mutate specs/m16n8k16.yaml",
                  "checker mutate specs/ --known-gaps mutation/known-gaps.yaml --format json --output campaign.json"])
    add_specs(mu)
    mu.add_argument("--known-gaps", metavar="FILE", help="survivors accepted, each with the theorem that would close it")
    mu.add_argument("--dumps", action="append", metavar="DIR",
                    help="probe dumps (files or folders) to run each mutant through crosscheck against")
    add_format(mu)
    add_output(mu)
    add_jobs(mu)


def run(args, out, err) -> int:
    from checker import scope
    from checker.files import is_relations_file

    positive_jobs(args)
    check_inputs(args)
    files = spec_files(args.paths)
    if all(is_relations_file(p) for p in files):
        raise UsageError("mutate needs a spec file to mutate, not only relations: nothing was checked")
    # the specs given are mutated; the relations in their scope (checker/scope.py) judge the mutants
    sc = scope.widen(files)
    failing = _unmutated_failures(sc, args.paths, args.jobs, err)
    if failing:
        return failing
    return _campaign(sc.given + sc.relations, args.jobs, args.known_gaps, args.format, out, args.dumps)


def _unmutated_failures(sc, paths: list, jobs, err) -> int:
    """A mutant is killed by a property or theorem that the original passes; against a spec that
    already fails one, every mutant would count as killed and the kill rate would say nothing.
    So the scope is proved first, as `checker prove` proves it (its cache too); where anything
    fails, its failures are printed as prove prints them and no mutant is made. -> prove's exit
    code (0: go on)."""
    from checker.commands.prove import proved
    from checker.options import Options
    from checker.report.text import failures
    from checker.results import exit_code, summary
    from checker.terminal import lines

    results, _ = proved(sc, Options(cross_check=True, jobs=jobs))
    code = exit_code(results)
    if code:
        err.write(failures(results))
        s = summary(results)
        err.write(lines([f"checker: error: mutate: the unmutated specs fail `checker prove {' '.join(paths)}`: "
                         f"{s['refuted']} refuted, {s['unknown']} unknown, {s['spec_errors']} spec errors (above). A "
                         "mutant is killed only by what the original passes, so none was made and there is no kill "
                         "rate; fix the spec first"]))
    return code


def _campaign(files: list, jobs: int, gaps_path: str | None, fmt: str, out, dump_dirs: list | None) -> int:
    from checker.mutate import gaps as known
    from checker.mutate.campaign import campaign
    from checker.mutate.render import text
    from checker.probe import dump

    t0 = time.perf_counter()
    dumps = [dump.read(p) for p in dump.find(dump_dirs)] if dump_dirs else []
    results = campaign(files, jobs, dumps)
    used = _dumps_used(results, dumps)
    gaps = known.load(gaps_path) if gaps_path else []
    unlisted, closed = known.match(results, gaps)
    seconds = time.perf_counter() - t0
    if fmt == "json":
        json.dump({"specs": [{"spec": c.spec, "counts": c.counts(),
                              "outcomes": [o.as_json() for o in c.outcomes]} for c in results],
                   "unlisted_survivors": len(unlisted), "closed_gaps": closed, "dumps": used,
                   "seconds": round(seconds, 3)}, out, indent=1)
        out.write("\n")
    else:
        out.write(text(results, unlisted, closed, seconds, used if dump_dirs else None))
    return 1 if unlisted or closed else 0


def _dumps_used(results, dumps) -> dict:
    used = [synthetic for c in results for _, synthetic in c.dumps]
    return {"given": len(dumps), "of_these_specs": len(used),
            "hardware": used.count(False), "synthetic": used.count(True)}
