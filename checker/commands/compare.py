"""`checker compare`: a user's layout (CuTe, Triton bases, a CSV table, a Python function) proved
equal to a spec fragment, or refuted with the smallest counterexample (checker/compare/)."""
from __future__ import annotations

import json
import re

from checker import outputs
from checker.bounded import shown
from checker.commands.common import (add_fragment, add_specs, check_inputs, check_outputs, command, integer,
                                     load_fragment)
from checker.errors import UsageError

NAME = "compare"


def add(sub) -> None:
    cp = command(sub, NAME, "prove your layout (CuTe, a CuTe copy or TMEM atom, Triton, a table, a function) "
                             "equal to a spec fragment, or refute it with the smallest counterexample",
                 "Prove a layout of your own equal to a spec fragment's, by z3 and by enumerating every "
                 "(thread, i) (the two must agree), or refute it at the smallest (thread, i), naming the "
                 "thread, the element and both cells (for a TMEM atom: the lane, the register, and the TMEM lane "
                 "and column each side gives). Exit 0 equal, 1 differs, 2 usage (an input file, or a --python "
                 "module, that is not there), 3 malformed input (one that is there but does not parse, or a --python "
                 "module that raises on import or has no such function: located at file:line:col).",
                 ['checker compare specs/m16n8k16.yaml --fragment A.f16 --cute "((4,8),(2,2,2)):((32,1),(16,8,128))"'
                  "   # CuTe's SM80 A trait",
                  "checker compare specs/m16n8k16.yaml --fragment C.float --triton c.json   # export --to triton's bases",
                  "checker compare specs/tcgen05.32x32b.yaml --fragment r.x1 --cute-tmem atom.yaml"
                  "   # ThrID, ValID, DstLayout",
                  "checker compare specs/m16n8k16.yaml --fragment B.f16 --python mylayouts:b_cell --format json"])
    add_specs(cp, "spec", one=True)
    add_fragment(cp)
    given = cp.add_mutually_exclusive_group(required=True)
    given.add_argument("--cute", metavar="SHAPE:STRIDE",
                       help="a CuTe TV layout, ((4,8),(2,2,2)):((32,1),(16,8,128)) or Layout<Shape<..>,Stride<..>>: "
                            "(thread, value) -> column-major index into M x K (A), N x K (B), M x N (C/D)")
    given.add_argument("--cute-copy", metavar="FILE.yaml",
                       help="a CuTe ldmatrix/stmatrix/movmatrix copy atom: YAML with kind: cute-copy, registers, "
                            "memory, tile, element_bits (docs/references.md)")
    given.add_argument("--cute-tmem", metavar="FILE.yaml",
                       help="a CuTe Tensor Memory copy atom (tcgen05.ld / tcgen05.st), for the tcgen05 specs: YAML "
                            "with kind: cute-tmem, registers (a LOAD's DstLayout, a STORE's SrcLayout), val_id (its "
                            "ValID), thr_id (optional, its ThrID: the identity), each as CuTe prints it, "
                            "(_32,_32):(_1,_2097152) (docs/references.md)")
    given.add_argument("--triton", metavar="FILE", help="linear-layout bases over (row, col): JSON "
                       "(register/lane/warp or reg_bases/lane_bases/warp_bases) or what `export --to triton` writes")
    given.add_argument("--table", metavar="FILE.csv", help="CSV lines thread,i,row,col")
    given.add_argument("--python", metavar="MODULE:FUNCTION",
                       help="a function (thread, i) -> (row, col) of your module (imported and run: your own code)")
    cp.add_argument("--computation", metavar="N|all",
                    help="m8n8k4 .f16: compare with MMA computation N's lanes (the thread index is the position "
                         "among them, CuTe's SM70 quad-pair numbering), or each in turn (all); default: the "
                         "whole warp, the thread index is the lane")
    cp.add_argument("--grid", action="store_true",
                    help="draw your layout as `checker table` draws the spec's, each cell where the spec puts "
                         "another element marked * (text only)")
    cp.add_argument("--band", type=integer, default=None, metavar="N",
                    help="with --grid: columns per band (default: 16; 0: the whole width in one)")
    cp.add_argument("--format", choices=["text", "json"], default="text")
    cp.add_argument("--output", metavar="FILE", help="write the result here instead of stdout")
    cp.set_defaults(own_output=True)


def _computation(args, frag):
    if args.computation is None:
        return None
    if not frag.computations:
        raise UsageError(f"{frag.id} is held by the whole warp: --computation applies only to mma.m8n8k4 .f16")
    if args.computation == "all":
        return "all"
    if not re.fullmatch(r"[0-9]{1,3}", args.computation) or not 1 <= int(args.computation) <= len(frag.computations):
        raise UsageError(f"--computation takes 1..{len(frag.computations)} or all for {frag.id}, "
                         f"found {shown(args.computation, 40)}")
    return int(args.computation)


def candidate(args, frag):
    from checker.compare import bases, inputs, pyfunction, table

    if args.cute is not None:
        return inputs.cute(args.cute, frag)
    if args.cute_copy is not None:
        from checker.references.load import load_copy_atom

        return load_copy_atom(args.cute_copy)
    if args.cute_tmem is not None:
        from checker.references.load import load_tmem_atom

        return load_tmem_atom(args.cute_tmem)
    if args.triton is not None:
        return bases.triton(args.triton, frag)
    if args.table is not None:
        return table.table(args.table)
    return pyfunction.function(args.python)


def run(args, out, err) -> int:
    import os

    from checker.compare import compare_layout, equal_with, hint

    check_outputs(args)
    check_inputs(args)
    if args.grid and args.format == "json":
        raise UsageError("--grid draws a picture in the text output; --format json gives the data (checker table "
                         "--format json is the spec's side)")
    if args.band is not None and not args.grid:  # it had been ignored: the picture it shapes is --grid's
        raise UsageError("--band shapes the picture --grid draws: give --grid too")
    if args.band is None:
        args.band = 16
    if args.band < 0:
        raise UsageError("--band takes 0 (no bands) or a number of columns")
    spec, frag = load_fragment(args.spec, args.fragment)
    comp = _computation(args, frag)
    cand = candidate(args, frag)
    name = os.path.splitext(os.path.basename(args.spec))[0]
    result = compare_layout(frag, cand, comp, spec_name=name)
    # export numbers an m8n8k4 .f16 layout's threads within computation 1, compare by the lane
    # unless told: whatever the candidate's kind, say which numbering would prove it equal
    others = [] if result.equal else equal_with(frag, cand, comp, name)
    if args.format == "json":
        text = json.dumps(result.to_json() | {"equal_with": others}, indent=1) + "\n"
    else:
        text = render_text(result, hint(frag, comp, others, result.equal))
        if args.grid:
            text += _picture(frag, cand, comp, args.band)
    if args.output:
        outputs.write_text(args.output, text, "--output")
    else:
        out.write(text)
    return 0 if result.equal else 1


def _picture(frag, cand, comp, band: int) -> str:
    from checker.compare.picture import grids
    from checker.report.tables import drawn
    from checker.spec.reading import materialize
    from checker.terminal import lines

    drawings, legend = grids(frag, materialize(frag), cand, comp)
    out = []
    for heading, grid in drawings:
        out += ([heading] if heading else []) + drawn(grid, frag.cols, band)
    return lines(out + [legend])


def render_text(result, hints=()) -> str:
    from checker.terminal import lines

    return lines([result.summary(), *(f"    {p}" for p in (*result.proofs, *hints))])
