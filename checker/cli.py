"""Command line: subcommands, argument parsing, exit codes. main(argv, stdout, stderr) -> int.

Exit codes: 0 all proved; 1 something refuted or unknown; 2 usage error (no spec file matched
included); 3 a spec could not be loaded or is malformed.
"""
from __future__ import annotations

import argparse
import atexit
import gc
import json
import os
import sys
import time

from checker import outputs
from checker.errors import CheckerError, SpecError, UsageError


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="checker", description="Prove the PTX mma fragment layouts of spec files.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    pr = sub.add_parser("prove", help="prove every property of every fragment")
    pr.add_argument("paths", nargs="+", metavar="PATH", help="spec files or folders of them")
    pr.add_argument("--format", choices=["text", "json", "sarif", "junit"], default="text")
    pr.add_argument("--output", metavar="FILE", help="write the report here instead of stdout (the text "
                    "summary still goes to stdout)")
    pr.add_argument("--no-cache", action="store_true",
                    help="prove again even when an identical run's results are cached (see README: Speed)")
    pr.add_argument("--no-cross-check", action="store_true",
                    help="skip the plain-Python engine that checks every z3 verdict")
    pr.add_argument("--dump-smt", metavar="DIR", help="write every named z3 query as SMT-LIB")
    pr.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), metavar="N",
                    help="worker processes (default: up to 2); 1 proves in this process")
    va = sub.add_parser("validate", help="check structure and meaning without proving")
    va.add_argument("paths", nargs="+", metavar="PATH")
    va.add_argument("--format", choices=["text", "json"], default="text")
    ev = sub.add_parser("eval", help="row and col of one element of one lane")
    ev.add_argument("spec")
    ev.add_argument("--fragment", required=True)
    ev.add_argument("--lane", type=int, required=True)
    ev.add_argument("--i", type=int, required=True, help="the element index: 3 for a3")
    ev.add_argument("--as-printed", type=int, metavar="K",
                    help="evaluate the document's printed text of the fragment's K-th erratum")
    ta = sub.add_parser("table", help="the layouts as a grid, or as data with --format json")
    ta.add_argument("spec")
    ta.add_argument("--fragment")
    ta.add_argument("--format", choices=["text", "json"], default="text")
    si = sub.add_parser("simulate", help="one round trip through the reference model")
    si.add_argument("spec")
    si.add_argument("--fragment-set", metavar="ID",
                    help="the variant, e.g. row.col.f32.f16.f16.f32 (without it: list them)")
    si.add_argument("--seed", type=int, default=0)
    si.add_argument("--format", choices=["text", "json"], default="text")
    pb = sub.add_parser("probe", help="run every variant's mma on a GPU and write dumps; --compile-only, --synthetic")
    pb.add_argument("paths", nargs="+", metavar="PATH")
    pb.add_argument("--out", metavar="DIR", help="where dumps go (default: reports/hardware, or "
                    "reports/synthetic with --synthetic)")
    pb.add_argument("--compile-only", action="store_true", help="assemble every kernel with ptxas; no GPU needed")
    pb.add_argument("--minimums", action="store_true",
                    help="with --compile-only: check each variant's minimum PTX version and target from the "
                         "support table against ptxas (it assembles at them and not one version below)")
    pb.add_argument("--synthetic", action="store_true",
                    help="write dumps whose D the reference model computes, marked synthetic (no GPU)")
    pb.add_argument("--arch", default=None, help="comma-separated targets for --compile-only (default: "
                    "sm_80,sm_89,sm_90) and the one target of --synthetic (default: sm_90)")
    pb.add_argument("--seed", type=int, default=0)
    pb.add_argument("--format", choices=["text", "json"], default="text")
    cc = sub.add_parser("crosscheck", help="predict every probe dump from the specs and compare (no GPU)")
    cc.add_argument("paths", nargs="+", metavar="PATH", help="spec files or folders of them")
    cc.add_argument("--dumps", required=True, action="append", metavar="DIR", help="dump files or folders")
    cc.add_argument("--format", choices=["text", "json"], default="text")
    df = sub.add_parser("diff", help="what an edit changes: entries that move, fragments, verdicts")
    df.add_argument("paths", nargs="*", metavar="PATH",
                    help="OLD NEW (two spec files), or with --base the spec files or folders (default: specs/)")
    df.add_argument("--base", metavar="REV", help="compare the working tree with this git revision")
    df.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    df.add_argument("--output", metavar="FILE", help="write the report here instead of stdout")
    rp = sub.add_parser("report", help="write the coverage report (HTML, Markdown, SVG); --check: is it current?")
    rp.add_argument("paths", nargs="+", metavar="PATH", help="spec files or folders of them")
    rp.add_argument("--out", default="reports", metavar="DIR", help="the report folder (default: reports)")
    rp.add_argument("--check", action="store_true",
                    help="write nothing; fail when a file of the report in --out is missing, differs or is left over")
    rp.add_argument("--dumps", metavar="DIR", help="hardware dumps to count as confirmation (default: OUT/hardware)")
    rp.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), metavar="N")
    er = sub.add_parser("errata", help="every confirmed erratum of the document, with its evidence and versions")
    er.add_argument("paths", nargs="+", metavar="PATH", help="spec files or folders of them")
    er.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    er.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), metavar="N")
    mu = sub.add_parser("mutate", help="the mutation campaign: which wrong layouts would the theorems let through?")
    mu.add_argument("paths", nargs="+", metavar="PATH", help="spec files or folders (relations files included)")
    mu.add_argument("--known-gaps", metavar="FILE", help="survivors accepted, each with the theorem that would close it")
    mu.add_argument("--dumps", action="append", metavar="DIR",
                    help="probe dumps (files or folders) to run each mutant through crosscheck against")
    mu.add_argument("--format", choices=["text", "json"], default="text")
    mu.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), metavar="N")
    ex = sub.add_parser("export", help="a fragment as CuTe, Triton, C++/CUDA or Python, checked against the spec")
    ex.add_argument("spec", metavar="SPEC")
    ex.add_argument("--fragment", required=True, metavar="ID")
    ex.add_argument("--to", required=True, choices=["cute", "triton", "cpp", "python"])
    ex.add_argument("--computation", type=int, metavar="N",
                    help="for mma.m8n8k4 .f16: which MMA computation's lanes (default 1)")
    ex.add_argument("--output", metavar="FILE", help="write it here instead of stdout")
    wh = sub.add_parser("where", help="which lane, element, register and bits hold a matrix cell")
    wh.add_argument("spec", metavar="SPEC")
    wh.add_argument("--fragment", required=True, metavar="ID")
    wh.add_argument("--row", required=True, type=int)
    wh.add_argument("--col", required=True, type=int)
    wh.add_argument("--compressed", action="store_true",
                    help="for a sparse A (mma.sp): --row/--col are in the compressed A, not in A")
    wh.add_argument("--format", choices=["text", "json"], default="text")
    sub.add_parser("schema", help="print the spec JSON Schema")
    return p


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ptx-fragment-checker")
    except PackageNotFoundError:  # pragma: no cover - a source tree on sys.path
        return "source"


def _check_outputs(args) -> None:
    """Every output path the command was given, checked before it does its work (checker/outputs.py):
    one that cannot be written is a usage error naming it."""
    for option, attr, kind in (("--output", "output", outputs.file), ("--dump-smt", "dump_smt", outputs.folder),
                               ("--out", "out", outputs.folder)):
        path = getattr(args, attr, None)
        if path is not None:
            kind(path, option)


def spec_files(paths) -> list:
    from checker.files import under

    files = under(paths, (".yaml", ".yml"))
    if not files:
        raise UsageError(f"no spec file (*.yaml) matched {' '.join(paths)}: nothing was checked")
    return files


def cmd_prove(args, out, err) -> int:
    from checker import launch

    if args.jobs < 1:
        raise UsageError("--jobs takes a positive number")
    _check_outputs(args)
    from checker import scope

    t0 = time.perf_counter()
    sc = scope.widen(spec_files(args.paths))  # what proving these files proves (checker/scope.py)
    files = sc.files
    opts = launch.Options(cross_check=not args.no_cross_check, dump_smt=args.dump_smt, jobs=args.jobs)
    # the prover process starts here, where it overlaps: the rest of this command is off its path
    with launch.Run(opts) as run:
        # a hit imports neither z3 nor lark nor jsonschema: that is where its speed comes from
        where = k = results = None
        if not (args.no_cache or args.dump_smt):
            from checker import cache

            where = cache.folder()
            k = cache.key(files, {"cross_check": not args.no_cross_check, "scope": sc.key()}) if where else None
            results = cache.load(where, k) if k else None
        cached = results is not None
        if not cached:
            reads = cache.recording() if k else None  # every input the proof reads (checker/recording.py)
            results = run.prove(files)
            if k:
                cache.store(where, k, results, reads.stop())
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


def cmd_validate(args, out, err) -> int:
    from checker.spec.load import load_spec
    from checker.spec.reading import materialize
    from checker.files import is_relations_file
    from checker.theorems.relations import load_relations

    worst = 0
    report = []
    for f in spec_files(args.paths):
        try:
            if is_relations_file(f):
                n = len(load_relations(f))
                report.append({"spec": f, "ok": True, "relations": n})
                if args.format == "text":
                    out.write(f"{f}: ok ({n} relations)\n")
                continue
            spec = load_spec(f)
            for frag in spec.fragments():
                reading = materialize(frag)
                for e in frag.errata:
                    materialize(frag, e, reading.n)
            report.append({"spec": f, "ok": True, "fragments": sum(1 for _ in spec.fragments())})
            if args.format == "text":
                out.write(f"{f}: ok ({report[-1]['fragments']} fragments)\n")
        except SpecError as exc:
            worst = 3
            report.append({"spec": f, "ok": False, "location": str(exc.span), "message": exc.message})
            if args.format == "text":
                err.write(f"{exc}\n")
    if args.format == "json":
        json.dump(report, out, indent=1)
        out.write("\n")
    return worst


def _load_fragment(path, fid):
    from checker.spec.load import load_spec

    spec = load_spec(spec_files([path])[0])
    frag = spec.fragment(fid)
    if frag is None:
        ids = ", ".join(f.id for f in spec.fragments())
        raise UsageError(f"{path} has no fragment {fid!r}; it has {ids}")
    return spec, frag


def cmd_eval(args, out, err) -> int:
    from checker.formula.evaluate import at, bound_at
    from checker.spec.reading import materialize

    spec, frag = _load_fragment(args.spec, args.fragment)
    reading = materialize(frag)
    if args.as_printed is not None:
        if not 1 <= args.as_printed <= len(frag.errata):
            raise UsageError(f"{frag.id} has {len(frag.errata)} errata; --as-printed takes 1..{len(frag.errata)}")
        reading = materialize(frag, frag.errata[args.as_printed - 1], reading.n)
        if reading.layout is None:
            raise SpecError(reading.syntax.span, "the printed text does not parse: " + reading.syntax.message)
    if not 0 <= args.lane < 32 or not 0 <= args.i < reading.n:
        raise UsageError(f"--lane takes 0..31 and --i takes 0..{reading.n - 1} for {frag.id}")
    rows, cols = at(reading.layout, args.lane, args.i)
    name = f"{frag.letter}{args.i}"
    out.write(f"{spec.shape} {frag.id}{' (as printed)' if args.as_printed else ''}: lane {args.lane} {name}\n")
    for target, hits, formula, limit in (("row", rows, reading.layout.row, frag.rows),
                                         ("col", cols, reading.layout.col, frag.cols)):
        if not hits:
            out.write(f"  {target}: no piece applies\n")
        for k, value, _ in hits:
            flag = "" if 0 <= value < limit else f"   (outside 0..{limit - 1})"
            out.write(f"  {target} = {value}   piece {k + 1} at {reading.layout.src.span(formula.pieces[k].off)}{flag}\n")
    ends = bound_at(reading.layout, args.lane, args.i)
    for (target, hits), formula in zip(ends, reading.layout.bound):
        for k, value, _ in hits:
            out.write(f"  {target} = {value}   piece {k + 1} at {reading.layout.src.span(formula.pieces[k].off)}\n")
        if not hits:
            out.write(f"  {target}: no piece applies\n")
    if len(rows) == 1 and len(cols) == 1 and all(len(h) == 1 for _, h in ends):
        if frag.sparsity is None:
            out.write(f"  holds {frag.operand}[{rows[0][1]}][{cols[0][1]}]\n")
        else:
            named = {t: h[0][1] for t, h in ends}
            first, last = (named[n] for n in reading.layout.column_range)
            out.write(f"  holds the compressed {frag.operand}[{rows[0][1]}][{cols[0][1]}]: a non-zero element of "
                      f"{frag.operand}[{rows[0][1]}][{first}..{last}], at the column the metadata gives\n")
        return 0
    return 1


def cmd_table(args, out, err) -> int:
    from checker.report.tables import fragment_table, render_text
    from checker.spec.load import load_spec
    from checker.spec.reading import materialize

    spec = load_spec(spec_files([args.spec])[0])
    frags = list(spec.fragments())
    if args.fragment:
        frags = [_load_fragment(args.spec, args.fragment)[1]]
    tables = [(f, fragment_table(spec, f, materialize(f))) for f in frags]
    if args.format == "json":
        json.dump([t for _, t in tables], out, separators=(",", ":"))
        out.write("\n")
    else:
        out.write("\n\n".join(render_text(t, f.letter) for f, t in tables) + "\n")
    return 0


def cmd_simulate(args, out, err) -> int:
    from checker.semantics.registers import ModelError
    from checker.semantics.variants import find
    from checker.spec.load import load_spec

    spec = load_spec(spec_files([args.spec])[0])
    if args.fragment_set is None:
        from checker.semantics.variants import variants

        out.write("".join(f"{v.id}    {v.instruction}\n" for v in variants(spec)))
        return 0
    v, all_ = find(spec, args.fragment_set)
    if v is None:
        raise UsageError(f"{spec.shape} has no variant {args.fragment_set!r}; it has "
                         + ", ".join(x.id for x in all_))
    if not 0 <= args.seed < 1 << 63:
        raise UsageError("--seed takes 0..2**63-1")
    from checker.report.simulate import render_json, render_text, round_trip

    try:
        r = round_trip(v, args.seed)
    except ModelError as exc:
        raise CheckerError(f"{v.instruction}: the reference model cannot run this spec: {exc}") from None
    if args.format == "json":
        json.dump(render_json(r), out, separators=(",", ":"))
        out.write("\n")
    else:
        out.write(render_text(r))
    return 0 if r["equal"] else 1


def _archs(text: str) -> list:
    import re

    archs = []
    for a in text.split(","):
        m = re.fullmatch(r"sm_(\d{2,3})", a.strip())
        if not m:
            raise UsageError(f"--arch takes targets like sm_80,sm_90, not {a!r}")
        archs.append(int(m.group(1)))
    return archs


def _variants_of(paths) -> list:
    from checker.semantics.variants import variants
    from checker.spec.load import load_spec
    from checker.files import is_relations_file

    out = []
    for path in spec_files(paths):
        if not is_relations_file(path):
            out.extend((path, v) for v in variants(load_spec(path)))
    if not out:
        raise UsageError("no variant to probe: the paths hold no spec")
    return out


def cmd_probe(args, out, err) -> int:
    if args.compile_only and args.synthetic:
        raise UsageError("--compile-only and --synthetic are two different runs; choose one")
    if args.minimums and not args.compile_only:
        raise UsageError("--minimums checks with the assembler: it goes with --compile-only")
    if not 0 <= args.seed < 1 << 62:
        raise UsageError("--seed takes 0..2**62-1")
    if args.compile_only:
        return _compile_only(args, out)
    _check_outputs(args)
    from checker.probe.ptx import min_sm
    from checker.probe.record import record

    todo = _variants_of(args.paths)
    device = None
    if args.synthetic:
        archs = _archs(args.arch or "sm_90")
        if len(archs) != 1:
            raise UsageError("--synthetic takes one --arch: the target its kernels are built for")
        sm, where = archs[0], args.out or os.path.join("reports", "synthetic")
    else:
        from checker.probe.gpu import Device

        device = Device()
        sm, where = device.sm, args.out or os.path.join("reports", "hardware")
    written, skipped = [], []
    t0 = time.perf_counter()
    for path, v in todo:
        need = min_sm(v)
        if need is None or sm < need:
            skipped.append(f"{v.instruction} (needs sm_{need})")
            continue
        try:
            written.append((v, record(v, path, where, sm, args.seed, device)))
        except (RuntimeError, ValueError) as exc:
            raise CheckerError(f"{v.instruction}: {exc}") from None
    seconds = time.perf_counter() - t0
    kind = "synthetic (reference model, not hardware)" if device is None else f"hardware ({device.name}, sm_{sm})"
    if args.format == "json":
        json.dump({"source": kind, "written": [p for _, p in written], "skipped": skipped,
                   "seconds": round(seconds, 3),
                   "launch_seconds": getattr(device, "launch_seconds", {})}, out, indent=1)
        out.write("\n")
    else:
        for v, p in written:
            out.write(f"wrote {p}\n")
        for s_ in skipped:
            out.write(f"skipped {s_}\n")
        out.write(f"{len(written)} {kind} dumps in {where}, {len(skipped)} skipped; {seconds:.1f} s\n")
    return 0


def _compile_only(args, out) -> int:
    from concurrent.futures import ThreadPoolExecutor

    if args.minimums:
        from checker.probe import minimums
        from checker.probe.assemble import ptxas

        return minimums.run(_variants_of(args.paths), args.format, out, ptxas())

    from checker.probe import sass
    from checker.probe.assemble import build, ptxas

    archs = _archs(args.arch or "sm_80,sm_89,sm_90")
    tool, disasm = ptxas(), sass.nvdisasm()

    def one(job):
        _, v, sm = job
        b = build(v, sm, tool)
        return b, (sass.disassemble(b.cubin, disasm) if b.ok and disasm else None)

    jobs = [(path, v, sm) for path, v in _variants_of(args.paths) for sm in archs]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:  # each job is two subprocesses
        done = list(pool.map(one, jobs))
    rows, worst = [], 0
    for (path, v, sm), (b, code) in zip(jobs, done):
        where = next(r.span for r in v.a.table if v.atype in r.types)
        rows.append({"spec": path, "instruction": v.instruction, "arch": f"sm_{sm}",
                     "result": {True: "assembled", None: "skipped", False: "rejected"}[b.ok],
                     "message": b.message, "location": str(where) if b.ok is False else None, "sass": code})
        if b.ok is False:
            worst = 1
            if args.format == "text":
                regs = ", ".join(f"{op} {r.count} x .{r.kind} at line {r.span.line}"
                                 for op in "ABCD" for r in v.fragment(op).table if v.type_of(op) in r.types)
                out.write(f"{where}: error: ptxas (sm_{sm}) rejects {v.instruction} with the spec's "
                          f"registers ({regs}):\n    " + b.message.replace("\n", "\n    ") + "\n")
    if args.format == "json":
        json.dump(rows, out, indent=1)
        out.write("\n")
        return worst
    for sm in archs:
        mine = [r for r in rows if r["arch"] == f"sm_{sm}"]
        skipped = sorted({r["message"] for r in mine if r["result"] == "skipped"})
        out.write(f"sm_{sm}: {sum(r['result'] == 'assembled' for r in mine)} assembled, "
                  f"{sum(r['result'] == 'rejected' for r in mine)} rejected, "
                  f"{sum(r['result'] == 'skipped' for r in mine)} skipped"
                  + (f" ({'; '.join(skipped)})" if skipped else "") + "\n")
        kinds: dict = {}
        for r in mine:
            if r["sass"]:
                ops = sass.tensor_ops(r["sass"]["opcodes"]) or "no tensor-core instruction (emulated)"
                kinds.setdefault(ops, []).append(r["instruction"].replace("mma.sync.aligned.", ""))
        for ops, names in sorted(kinds.items()):
            shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            out.write(f"  SASS {ops}: {len(names)} ({shown})\n")
    if not disasm:
        out.write("(no nvdisasm found: SASS opcode counts skipped; the [test] and [gpu] extras install it)\n")
    return worst


def cmd_crosscheck(args, out, err) -> int:
    from checker.probe.crosscheck import crosscheck, render_text
    from checker.probe.dump import find
    from checker.results import exit_code, summary
    from checker.spec.load import load_spec
    from checker.files import is_relations_file

    t0 = time.perf_counter()
    specs = [(p, load_spec(p)) for p in spec_files(args.paths) if not is_relations_file(p)]
    files = find(args.dumps)
    if not files:
        raise UsageError(f"no probe dump (*.dump.json.gz) in {' '.join(args.dumps)}: nothing was checked")
    results, stats = crosscheck(specs, files)
    if not any(r.subject for r in results) and not any(r.failed() for r in results):
        raise UsageError("no dump is of a variant of these specs: nothing was checked")
    seconds = time.perf_counter() - t0
    if args.format == "json":
        json.dump({"summary": summary(results) | {"seconds": round(seconds, 4)} | stats,
                   "results": [r.as_json() | {"dump": r.detail.get("dump"), "source": r.detail.get("source")}
                               for r in results]}, out, indent=1)
        out.write("\n")
    else:
        out.write(render_text(results, stats, seconds))
    return exit_code(results)


def cmd_diff(args, out, err) -> int:
    from checker import scope
    from checker.diff.compare import diff_base, diff_pair, flatten
    from checker.report import diff as render

    _check_outputs(args)
    # every verdict of each edited file's scope is compared (checker/scope.py): the revision's
    # copy of the scope is read too, so both versions are judged with their own relations
    if args.base:
        paths = args.paths or ["specs"]
        diffs = flatten(diff_base(args.base, [str(p) for p in scope.widen(spec_files(paths)).files]
                                  if args.paths else paths, spec_files))
    else:
        if len(args.paths) != 2:
            raise UsageError("diff takes OLD NEW (two spec files), or --base REV [PATH...]")
        for p in args.paths:
            if not os.path.isfile(p):
                raise UsageError(f"no such file: {p}")
        diffs = flatten([diff_pair(args.paths[0], args.paths[1])])
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
    return 1 if any(d.worse for d in diffs) else 0


def cmd_report(args, out, err) -> int:
    from checker.report.command import run

    if args.jobs < 1:
        raise UsageError("--jobs takes a positive number")
    if not args.check:
        _check_outputs(args)
    return run(spec_files(args.paths), args, out)


def cmd_errata(args, out, err) -> int:
    from checker.report.errata_command import run

    if args.jobs < 1:
        raise UsageError("--jobs takes a positive number")
    return run(spec_files(args.paths), args.format, args.jobs, out)


def cmd_mutate(args, out, err) -> int:
    from checker.mutate.command import run
    from checker.files import is_relations_file

    if args.jobs < 1:
        raise UsageError("--jobs takes a positive number")
    from checker import scope

    files = spec_files(args.paths)
    if all(is_relations_file(p) for p in files):
        raise UsageError("mutate needs a spec file to mutate, not only relations: nothing was checked")
    # the specs given are mutated; the relations in their scope (checker/scope.py) judge the mutants
    sc = scope.widen(files)
    return run(sc.given + sc.relations, args.jobs, args.known_gaps, args.format, out, args.dumps)


def cmd_export(args, out, err) -> int:
    from checker.export.command import export

    command = " ".join(["checker export", args.spec, "--fragment", args.fragment, "--to", args.to]
                       + (["--computation", str(args.computation)] if args.computation is not None else []))
    _check_outputs(args)
    text = export(args.spec, args.fragment, args.to, args.computation, command)
    if args.output:
        outputs.write_text(args.output, text, "--output")
    else:
        out.write(text)
    return 0


def cmd_where(args, out, err) -> int:
    from checker.export.command import where, where_text

    w = where(args.spec, args.fragment, args.row, args.col, args.compressed)
    if args.format == "json":
        json.dump(w, out, indent=1)
        out.write("\n")
    else:
        out.write(where_text(w))
    return 0 if w["holders"] else 1


def cmd_schema(args, out, err) -> int:
    from checker.spec.load import schema

    json.dump(schema(), out, indent=2)
    out.write("\n")
    return 0


COMMANDS = {"prove": cmd_prove, "validate": cmd_validate, "eval": cmd_eval, "table": cmd_table,
            "simulate": cmd_simulate, "probe": cmd_probe, "crosscheck": cmd_crosscheck, "diff": cmd_diff,
            "report": cmd_report, "errata": cmd_errata, "mutate": cmd_mutate, "export": cmd_export, "where": cmd_where,
            "schema": cmd_schema}


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
