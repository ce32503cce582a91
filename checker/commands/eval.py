"""`checker eval`: row and col of one element of one lane, and the piece that gives them."""
from __future__ import annotations

from checker.commands.common import add_fragment, add_output, add_specs, command, integer, load_fragment
from checker.errors import UsageError

NAME = "eval"


def add(sub) -> None:
    ev = command(sub, NAME, "row and col of one element of one lane",
                 "Evaluate a fragment's formula at one point: the row and col that element --i of lane --lane "
                 "holds, and the piece of the formula (file:line:col) that gives each. This is the replay "
                 "command of every counterexample.",
                 ["checker eval specs/m16n8k256.yaml --fragment A.b1 --lane 0 --i 96",
                  "checker eval specs/m16n8k256.yaml --fragment A.b1 --lane 0 --i 96 --as-printed 1"
                  "   # the document's text"])
    add_specs(ev, "spec", one=True)
    add_fragment(ev)
    ev.add_argument("--lane", type=integer, required=True, metavar="L", help="the lane (%%laneid), or for a warpgroup fragment the thread (%%tid, 0..127)")
    ev.add_argument("--i", type=integer, required=True, help="the element index: 3 for a3")
    ev.add_argument("--as-printed", type=integer, metavar="K",
                    help="evaluate the document's printed text of the fragment's K-th erratum")
    add_output(ev)


def run(args, out, err) -> int:
    from checker.formula.evaluate import at, bound_at
    from checker.spec.reading import as_printed, materialize
    from checker.terminal import lines as text_lines

    spec, frag = load_fragment(args.spec, args.fragment)
    reading = materialize(frag) if args.as_printed is None else as_printed(frag, args.as_printed)
    threads = frag.threads.count
    if not 0 <= args.lane < threads or not 0 <= args.i < reading.n:
        raise UsageError(f"--lane takes 0..{threads - 1} and --i takes 0..{reading.n - 1} for {frag.id}")
    if args.lane not in frag.holders():  # a block-scale factor: its selector picks the lanes
        raise UsageError(f"lane {args.lane} holds no element of {frag.id}: the lanes "
                         f"{', '.join(f'{k} = {v}' for k, v in frag.params)} picks are "
                         f"{', '.join(map(str, frag.holders()))}")
    rows, cols = at(reading.layout, args.lane, args.i)
    name = f"{frag.letter}{args.i}"
    who = (f"thread {args.lane} (warp {args.lane // 32}, lane {args.lane % 32})" if threads > 32
           else f"lane {args.lane}")
    lines = [f"{spec.shape} {frag.id}{' (as printed)' if args.as_printed else ''}: {who} {name}"]
    for target, hits, formula, limit in (("row", rows, reading.layout.row, frag.rows),
                                         ("col", cols, reading.layout.col, frag.cols)):
        if not hits:
            lines.append(f"  {target}: no piece applies")
        for k, value, _ in hits:
            flag = "" if 0 <= value < limit else f"   (outside 0..{limit - 1})"
            lines.append(f"  {target} = {value}   piece {k + 1} at {reading.layout.src.span(formula.pieces[k].off)}{flag}")
    ends = bound_at(reading.layout, args.lane, args.i)
    for (target, hits), formula in zip(ends, reading.layout.bound):
        for k, value, _ in hits:
            lines.append(f"  {target} = {value}   piece {k + 1} at {reading.layout.src.span(formula.pieces[k].off)}")
        if not hits:
            lines.append(f"  {target}: no piece applies")
    held = len(rows) == 1 and len(cols) == 1 and all(len(h) == 1 for _, h in ends)
    if held and frag.sparsity is None:
        lines.append(f"  holds {frag.operand}[{rows[0][1]}][{cols[0][1]}]")
    elif held:
        named = {t: h[0][1] for t, h in ends}
        first, last = (named[n] for n in reading.layout.column_range)
        lines.append(f"  holds the compressed {frag.operand}[{rows[0][1]}][{cols[0][1]}]: a non-zero element of "
                     f"{frag.operand}[{rows[0][1]}][{first}..{last}], at the column the metadata gives")
    out.write(text_lines(lines))
    return 0 if held else 1
