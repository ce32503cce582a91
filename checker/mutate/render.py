"""`checker mutate` as text: per spec what killed what, and every survivor."""
from __future__ import annotations

from checker.mutate.campaign import ORDER
from checker.terminal import lines as text_lines

KILLS = ORDER[:-2]


def kill_rate(counts: dict) -> tuple:
    killed = sum(counts[k] for k in KILLS)
    live = killed + counts["survivor"]
    return killed, live


def text(results, unlisted, closed, seconds, used=None) -> str:
    lines, total = [], {k: 0 for k in ORDER}
    for c in results:
        counts = c.counts()
        for k, v in counts.items():
            total[k] += v
        killed, live = kill_rate(counts)
        by = ", ".join(f"{k} {counts[k]}" for k in KILLS if counts[k])
        lines.append(f"{c.spec}: {len(c.outcomes)} mutants; killed {killed} of {live} non-equivalent "
                     f"({_pct(killed, live)}): {by}; equivalent {counts['equivalent']}; survivors {counts['survivor']}")
        for o in c.outcomes:
            if o.verdict == "survivor":
                lines.append(f"  {o.location}: survivor: {o.fragment} {o.operator}: `{o.before}` -> `{o.after}`")
                lines.append(f"      {o.difference}")
                lines.append(f"      {o.by or 'NOT A KNOWN GAP: no theorem tells this layout from the original'}")
    for g in closed:
        lines.append(f"known gap no longer survives (remove it from the list): {g['spec']} {g['fragment']}: "
                     f"`{g['before']}` -> `{g['after']}`")
    if used is not None:
        lines.append("crosscheck stage: no probe dump in the --dumps folders; it checked nothing" if not used["given"] else
                     f"crosscheck stage: {used['of_these_specs']} of {used['given']} dumps are of these specs "
                     f"({used['hardware']} hardware, {used['synthetic']} synthetic)"
                     + ("; it checked nothing" if not used["of_these_specs"] else "")
                     + ("; synthetic dumps are the reference model run on the spec: they show the stage works, "
                        "not what hardware does" if used["synthetic"] else ""))
    killed, live = kill_rate(total)
    lines.append(f"{sum(total.values())} mutants: {killed} of {live} non-equivalent killed ({_pct(killed, live)}), "
                 f"{total['equivalent']} equivalent (z3 proves the same map), {total['survivor']} survivors "
                 f"({len(unlisted)} not known gaps) ({seconds:.2f} s)")
    return text_lines(lines)


def _pct(a, b) -> str:
    return f"{100 * a / b:.1f}%" if b else "n/a"
