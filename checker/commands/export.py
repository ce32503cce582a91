"""`checker export`: a fragment as CuTe, Triton, C++/CUDA or Python, checked against the spec."""
from __future__ import annotations

from checker import outputs
from checker.commands.common import check_outputs

NAME = "export"


def add(sub) -> None:
    ex = sub.add_parser(NAME, help="a fragment as CuTe, Triton, C++/CUDA or Python, checked against the spec")
    ex.add_argument("spec", metavar="SPEC")
    ex.add_argument("--fragment", required=True, metavar="ID")
    ex.add_argument("--to", required=True, choices=["cute", "triton", "cpp", "python"])
    ex.add_argument("--computation", type=int, metavar="N",
                    help="for mma.m8n8k4 .f16: which MMA computation's lanes (default 1)")
    ex.add_argument("--output", metavar="FILE", help="write it here instead of stdout")


def run(args, out, err) -> int:
    from checker.export.checked import export

    command = " ".join(["checker export", args.spec, "--fragment", args.fragment, "--to", args.to]
                       + (["--computation", str(args.computation)] if args.computation is not None else []))
    check_outputs(args)
    text = export(args.spec, args.fragment, args.to, args.computation, command)
    if args.output:
        outputs.write_text(args.output, text, "--output")
    else:
        out.write(text)
    return 0
