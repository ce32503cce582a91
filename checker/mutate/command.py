"""`checker mutate`: run the campaign, say per spec what killed what, list every survivor."""
from __future__ import annotations

import json
import time

from checker.mutate import gaps as known
from checker.mutate.campaign import ORDER, campaign

KILLS = ORDER[:-2]


def kill_rate(counts: dict) -> tuple:
    killed = sum(counts[k] for k in KILLS)
    live = killed + counts["survivor"]
    return killed, live


def run(files: list, jobs: int, gaps_path: str | None, fmt: str, out, dump_dirs: list | None = None) -> int:
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
    return "\n".join(lines) + "\n"


def _pct(a, b) -> str:
    return f"{100 * a / b:.1f}%" if b else "n/a"
