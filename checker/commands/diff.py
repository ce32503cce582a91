"""`checker diff`: what an edit of a spec changes: entries that move, fragments, verdicts."""
from __future__ import annotations

import json
import os

from checker import outputs
from checker.commands.common import add_format, add_jobs, add_output, check_outputs, command, positive_jobs, spec_files
from checker.errors import UsageError

NAME = "diff"


def add(sub) -> None:
    df = command(sub, NAME, "what an edit changes: entries that move, fragments, verdicts",
                 "Compare two versions of a spec: which (lane, element) entries move to another cell, which "
                 "fragments appear or go, which verdicts change, for the files and their scope. Exit 1 when "
                 "a verdict gets worse (the CI gate, docs/gate.md); exit 3 when the new version is a spec that "
                 "validate refuses, said at its file:line:col (an old version that does not load is listed: "
                 "an edit that mends it passes).",
                 ["checker diff old/m16n8k16.yaml specs/m16n8k16.yaml",
                  "checker diff --base origin/main specs/ --format markdown --output diff.md"])
    df.add_argument("paths", nargs="*", metavar="SPEC",
                    help="OLD NEW (two spec files), or with --base the spec files or folders (default: specs/)")
    df.add_argument("--base", metavar="REV", help="compare the working tree with this git revision")
    add_format(df, ("text", "json", "markdown"))
    add_output(df, "write the report here instead of stdout")
    add_jobs(df)
    df.set_defaults(own_output=True)


def run(args, out, err) -> int:
    from checker.diff.compare import diff_pair, flatten
    from checker.diff.git import diff_base
    from checker.report import diff as render

    positive_jobs(args)
    check_outputs(args)
    # every verdict of each edited file's scope is compared (checker/scope.py): the revision's
    # copy of the scope is read too, so both versions are judged with their own relations
    if args.base:
        # the paths given and their scope, now and at the revision (checker/diff/git.py)
        diffs = flatten(diff_base(args.base, args.paths or ["specs"], spec_files, args.jobs, scoped=bool(args.paths)))
    else:
        if len(args.paths) != 2:
            raise UsageError("diff takes OLD NEW (two spec files), or --base REV [PATH...]")
        for p in args.paths:
            if not os.path.isfile(p):
                # a folder or a device given as OLD or NEW exists: "no such file" sent the user looking
                # for a typo
                raise UsageError(f"not a spec file: {p} (a folder or a special file)" if os.path.exists(p)
                                 else f"no such file: {p}")
        _one_file_twice(*args.paths)
        diffs = flatten([diff_pair(args.paths[0], args.paths[1], args.jobs)])
    if args.format == "json":
        report = json.dumps(render.as_json(diffs), indent=1) + "\n"
    elif args.format == "markdown":
        report = render.as_markdown(diffs)
    else:
        report = render.as_text(diffs)
    if args.output:
        outputs.write_text(args.output, report, "--output")
    else:
        out.write(report)
    # a new version validate refuses is a spec error, as in every command: said located, exit 3 (an
    # old version's error, or a removed file's, is listed but fails nothing: mending or removing a
    # broken spec must pass the gate)
    refused = list(dict.fromkeys(m for d in diffs if d.status != "removed" for m in d.refused))
    err.write("".join(f"{m}\n" for m in refused))
    return 3 if refused else 1 if any(d.worse for d in diffs) else 0


def _one_file_twice(old: str, new: str) -> None:
    """OLD and NEW are two versions of one file, or a UsageError: two different specs were diffed as
    an edit (OLD judged under NEW's name, "rename the file to m8n8k32.yaml" said of a file of that
    name, exit 0), a spec against a relations file said "modified", and the list of untranscribed
    figures was diffed as a spec."""
    from checker.errors import SpecError
    from checker.files import is_relations_file, is_untranscribed_file
    from checker.spec.yamlload import load

    for p in (old, new):
        if is_untranscribed_file(p):
            raise UsageError(f"{p} is no spec: it lists the figures no spec transcribes (checker verbatim reads it)")
    if is_relations_file(old) != is_relations_file(new):
        kind = {True: "a relations file", False: "a spec"}
        raise UsageError(f"diff compares two versions of one file: {old} is {kind[is_relations_file(old)]}, "
                         f"{new} {kind[is_relations_file(new)]}")
    if is_relations_file(new):
        return
    shape = os.path.splitext(os.path.basename(new))[0]
    try:
        value = load(old).value
    except SpecError:
        return  # the old version's own error, listed by the diff: mending a broken spec must pass
    was = value.get("shape") if isinstance(value, dict) else None
    # OLD a whole spec of another instruction, named for it; an old version whose shape is a slip
    # (`m8n8k3` in m8n8k32.yaml) is that version's error, listed, so that the edit mending it passes
    if isinstance(was, str) and was == os.path.splitext(os.path.basename(old))[0] and was != shape:
        raise UsageError(f"diff compares two versions of one spec: {old} is {was[:40]!r}, {new} is {shape!r} "
                         "(to compare two instructions' layouts, checker table each)")
