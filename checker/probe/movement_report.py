"""What the movement crosscheck found, in words (`checker crosscheck`), and which hardware dumps
agree per instruction (the ISA coverage report's hardware column)."""
from __future__ import annotations

import os

from checker.probe.findings import by_subject, error_lines, synthetic_only, verdict_lines
from checker.terminal import lines as text_lines


def render_text(results: list, stats: dict) -> str:
    lines = error_lines(results)
    groups = by_subject(results)
    def agreed(rs):
        bits = "in the values' bits" if any(r.detail.get("masked") for r in rs) else "bit for bit"
        where = ", every element where the reading puts it" if any(r.property == "identifies" for r in rs) else ""
        warps = next((r.detail.get("warps") for r in rs if r.detail.get("warps")), None)
        return f"{warps} warps {bits}{where}"

    found, agree = verdict_lines(groups, 48, agreed)
    lines += found
    lines += [f"not predicted: {u}" for u in stats["unpredicted"]]
    if stats["without_dump"]:
        lines.append(f"{len(stats['without_dump'])} ldmatrix / stmatrix / movmatrix forms of these specs have no dump")
    lines += synthetic_only(stats, "movement")
    malformed = sum(r.property == "dump" for r in results)
    lines.append(f"{stats['dumps']} movement dumps ({stats['hardware']} hardware, {stats['synthetic']} synthetic, "
                 f"{stats['other_specs']} of other specs, {len(stats['unpredicted'])} not predicted): {agree} agree, "
                 f"{len(groups) - agree} disagree, {malformed} malformed")
    return text_lines(lines)


def hardware_agreement(specs: list, dump_dir: str | None) -> tuple:
    """("movement", instruction) -> hardware dumps under dump_dir whose every check passes; and how
    many agree. Synthetic dumps never count."""
    from checker.probe import movement_dump
    from checker.probe.movement_run import crosscheck_movement

    if not dump_dir or not os.path.isdir(dump_dir):
        return {}, 0
    paths = movement_dump.find([dump_dir])
    if not paths:
        return {}, 0
    results, _ = crosscheck_movement(specs, paths)
    from checker.probe.findings import refuse_malformed

    refuse_malformed(results, dump_dir)
    per_dump: dict = {}
    for r in results:
        if r.subject and "dump" in r.detail:
            per_dump.setdefault(r.detail["dump"], []).append(r)
    counts, agreeing = {}, 0
    for rs in per_dump.values():
        if rs[0].detail["source"] != "hardware" or any(r.failed() for r in rs):
            continue
        agreeing += 1
        key = ("movement", rs[0].subject)
        counts[key] = counts.get(key, 0) + 1
    return counts, agreeing
