"""`checker simulate`: one round trip through the reference model; checker/report/simulate.py
renders it."""
from __future__ import annotations

import json

from checker.commands.common import add_format, add_output, add_specs, command, integer, one_spec
from checker.errors import CheckerError, UsageError

NAME = "simulate"


def add(sub) -> None:
    si = command(sub, NAME, "one round trip through the reference model",
                 "Pack random exact matrices into every lane's registers with the spec's layouts, run the "
                 "reference model of the mma, gather D back and compare it with the host's A.B + C. Without "
                 "--fragment-set it lists the variants (instructions) of the spec.",
                 ["checker simulate specs/m16n8k16.yaml                                   # list the variants",
                  "checker simulate specs/m16n8k16.yaml --fragment-set row.col.f32.f16.f16.f32 --seed 7"])
    add_specs(si, "spec", one=True)
    si.add_argument("--fragment-set", metavar="ID",
                    help="the variant, e.g. row.col.f32.f16.f16.f32 (without it: list them)")
    si.add_argument("--seed", type=integer, default=0, metavar="N", help="the random matrices' seed (default: 0)")
    add_format(si)
    add_output(si)


def run(args, out, err) -> int:
    from checker.semantics.registers import ModelError
    from checker.semantics.variants import find, variants
    from checker.spec.checked import load_checked

    spec = load_checked(one_spec(args.spec))
    all_ = variants(spec)
    if not all_:
        # a wgmma, sparse or data-movement spec: the reference model runs mma.sync's dense variants only
        raise UsageError(f"{spec.shape} ({spec.family}) has no variant the reference model runs: "
                         "checker simulate takes a dense mma.sync spec (specs/m16n8k16.yaml)")
    if args.fragment_set is None:
        if args.format == "json":
            json.dump([{"id": x.id, "instruction": x.instruction} for x in all_], out, separators=(",", ":"))
            out.write("\n")
        else:
            out.write("".join(f"{x.id}    {x.instruction}\n" for x in all_))
        return 0
    v, _ = find(spec, args.fragment_set)
    if v is None:
        import difflib

        from checker.bounded import shown

        close = difflib.get_close_matches(args.fragment_set, [x.id for x in all_], n=1, cutoff=0.8)
        raise UsageError(f"{spec.shape} has no variant {shown(args.fragment_set)}"
                         + (f"; did you mean {close[0]!r}? It has " if close else "; it has ") + ", ".join(x.id for x in all_))
    if not 0 <= args.seed < 1 << 63:
        raise UsageError("--seed takes 0..2**63-1")
    from checker.report.simulate import render_json, render_text

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


def round_trip(v, seed: int) -> dict:
    """Random exact matrices through the reference model and back, beside the host's A.B + C."""
    import numpy as np

    from checker.semantics import inputs
    from checker.semantics.execute import execute, geometries, shapes
    from checker.semantics.registers import pack, unpack

    geo = geometries(v)
    shp = shapes(v)
    A, B, C = inputs.random_inputs(v, seed)
    regs = {"A": pack(geo["A"], A), "B": pack(geo["B"], B), "C": pack(geo["C"], C)}
    regs["D"] = execute(v, regs["A"], regs["B"], regs["C"], geo)
    D = unpack(geo["D"], regs["D"], shp["D"])
    host = inputs.host_product(v, A, B, C)
    equal = np.array_equal(D.astype(np.float64), host.astype(np.float64))
    return {"variant": v, "seed": seed, "matrices": {"A": A, "B": B, "C": C, "D": D, "host": host},
            "registers": regs, "geometry": geo, "equal": bool(equal),
            "cells": int(host.size), "mismatches": int((D.astype(np.float64) != host.astype(np.float64)).sum())}
