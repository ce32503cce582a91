"""`checker export`: a fragment as CuTe, Triton, C++/CUDA or Python, checked against the spec."""
from __future__ import annotations

from checker import outputs
from checker.commands.common import add_fragment, add_output, add_specs, check_outputs, command, integer, one_spec

NAME = "export"


def add(sub) -> None:
    ex = command(sub, NAME, "a fragment as CuTe, Triton, C++/CUDA or Python, checked against the spec",
                 "Write a fragment in the form another tool takes: a CuTe TV layout, Triton linear-layout "
                 "bases, a C++/CUDA header or a Python module. Nothing is written unless the fragment is a "
                 "proved bijection and every derived form is proved equal to the spec by z3 and the "
                 "enumeration.",
                 ["checker export specs/m16n8k16.yaml --fragment A.f16 --to cute",
                  "checker export specs/m16n8k16.yaml --fragment C.float --to cpp --output m16n8k16_C_float.h"])
    add_specs(ex, "spec", one=True)
    add_fragment(ex)
    ex.add_argument("--to", required=True, choices=["cute", "triton", "cpp", "python"], help="the form to write")
    ex.add_argument("--computation", type=integer, metavar="N",
                    help="for mma.m8n8k4 .f16: which MMA computation's lanes (default 1)")
    add_output(ex, "write it here instead of stdout")
    ex.set_defaults(own_output=True)


def run(args, out, err) -> int:
    from checker.export.checked import export

    command = " ".join(["checker export", args.spec, "--fragment", args.fragment, "--to", args.to]
                       + (["--computation", str(args.computation)] if args.computation is not None else []))
    check_outputs(args)
    text = export(one_spec(args.spec), args.fragment, args.to, args.computation, command)
    if args.output:
        outputs.write_text(args.output, text, "--output")
    else:
        out.write(text)
    return 0
