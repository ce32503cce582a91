"""Crosscheck of wgmma dumps with the specs' readings; no GPU needed.

Per dump (one variant: one N, one A source, one swizzle mode), three results:
  predicts       every CTA's d_out equals what the reference model computes from its a, b, d_in and
                 scale-d with the spec's fragments and the document's shared-memory layout, bit for bit
  identifies-D   every D element (thread, di) sits at the row and column the spec's D fragment at
                 this N gives: the column from the columns pattern, the row the spec's (or, A from
                 shared memory, the document's) row of the A slot the slots patterns show it meets
  identifies-A   every A slot sits at the row and k the spec's A fragment gives (A from shared
                 memory: the row and k the document's layout gives): the row the spec's D row of the
                 D elements that show it, k their column mod K
A disagreement names the thread (warp and %laneid), the element, what the dump shows and what the
spec says, at the line of the formula piece that gives the spec's answer. Rows are relative: a row
permutation shared by A and D cannot be seen (checker/probe/wgmma_patterns.py says why).
"""
from __future__ import annotations

import time

import numpy as np

from checker.probe import wgmma_dump as dumps
from checker.probe import wgmma_model as model
from checker.probe import wgmma_patterns as patterns
from checker.probe.crosscheck import where
from checker.probe.findings import by_subject, error_lines, readable, synthetic_only, verdict_lines
from checker.results import PROVED, REFUTED, SPEC_ERROR, Result
from checker.terminal import lines as text_lines

SYNTHETIC_TAG = "[synthetic dump: reference model, not hardware] "


def _blocks(d) -> list:
    """[(kind, slice of CTAs)] of every block in order; a kind may come back (two random blocks)."""
    out, at = [], 0
    for b in d.header["blocks"]:
        out.append((b["kind"], slice(at, at + b["count"])))
        at += b["count"]
    return out


def _slices(d) -> dict:
    """kind -> the CTAs of its first block: the one the identification reads."""
    out: dict = {}
    for kind, sl in _blocks(d):
        out.setdefault(kind, sl)
    return out


def fits(v, frag, d) -> str | None:
    """Why the dump's arrays are not this variant's, or None."""
    regs = frag["D"].count
    want = {"a": ((v.a_bytes,), np.uint8) if v.a_shared else ((128, 4), np.uint32),
            "b": ((v.b_bytes,), np.uint8), "d_in": ((128, regs), np.uint32), "d_out": ((128, regs), np.uint32),
            "scale_d": ((), np.uint32)} | ({"meta": ((128,), np.uint32)} if v.sparse else {})
    for name, (shape, dtype) in want.items():
        a = d.arrays.get(name)
        if a is None:
            return f"arrays.{name} is missing: {v.id} takes it"
        if a.shape[1:] != shape or a.dtype != dtype:
            return (f"arrays.{name} is {list(a.shape)} {a.dtype}, but {v.id} takes [ctas"
                    + "".join(f", {x}" for x in shape) + f"] {np.dtype(dtype).name}")
    if (d.header["n"], d.header["a_source"], d.header["swizzle"]) != (v.n, v.a_source, v.swizzle):
        return "n, a_source and swizzle do not match the variant the dump names"
    if d.header["descriptor_high"] != f"0x{v.descriptor_high():016x}":
        return (f"descriptor_high {d.header['descriptor_high']}: the kernel of {v.id} builds "
                f"0x{v.descriptor_high():016x}")
    return None


def _thread(t: int) -> str:
    return f"thread {t} (warp {t // 32}, %laneid {t % 32})"


def _predicts(v, spec, d, tag, subject) -> Result:
    dg = model.fragments(v, spec)["D"]
    try:
        want = model.predict(v, spec, d.arrays)
    except model.WgmmaModelError as exc:
        return Result(v.spec, dg.fragment.id, "predicts", REFUTED, location=str(dg.fragment.span), subject=subject,
                      message=f"{tag}the reference model cannot run the dump's inputs: {exc}")
    got = d.arrays["d_out"]
    bad = (want != got).reshape(len(got), -1).any(axis=1)
    if not bad.any():
        return Result(v.spec, dg.fragment.id, "predicts", PROVED, location=str(dg.fragment.span), subject=subject,
                      message=f"{tag}all {len(got)} CTAs predicted bit for bit", detail={"ctas": len(got)})
    c, t, r = (int(x) for x in np.argwhere(want != got)[0])
    kind = next(k for k, s in _blocks(d) if s.start <= c < s.stop)
    return Result(v.spec, dg.fragment.id, "predicts", REFUTED, location=str(dg.fragment.span), subject=subject,
                  counterexample={"cta": c, "thread": t, "register": r, "dump": int(got[c, t, r]),
                                  "predicted": int(want[c, t, r])},
                  message=f"{tag}{int(bad.sum())} of {len(got)} CTAs differ; first: CTA {c} ({kind}), {_thread(t)}, "
                          f"D register {r}: dump {int(got[c, t, r]):08x}, spec predicts {int(want[c, t, r]):08x}")


def observe(v, spec, d) -> dict:
    """What the patterns show: col (128, n) and shown (128, n), the A slot each D element meets;
    -1 where a value is not a code."""
    dg = model.fragments(v, spec)["D"]
    sl = _slices(d)
    if "columns" not in sl or "slots" not in sl or sl["slots"].stop - sl["slots"].start != patterns.digits(v):
        raise KeyError(f"the columns CTA and {patterns.digits(v)} slots CTAs")
    with np.errstate(invalid="ignore"):  # a d_out of NaN patterns: rounding them warned on stderr too
        vals = model.values(v.dtype, model.unpack(dg, d.arrays["d_out"]))  # (C, 128, n)
        code = np.where(np.isfinite(vals) & (vals == np.round(vals)), vals, -1e9)
    col = code[sl["columns"].start] - 1
    col = np.where((col >= 0) & (col < v.n), col, -1).astype(np.int64)
    base = patterns.base(v)
    shown = np.zeros(col.shape, dtype=np.int64)
    ok = np.ones(col.shape, dtype=bool)
    for j, c in enumerate(range(sl["slots"].start, sl["slots"].stop)):
        digit = code[c] - (0 if v.atype == "b1" else 1)
        ok &= (digit >= 0) & (digit < base)
        shown += np.where(ok, digit, 0).astype(np.int64) * base ** j
    shown = np.where(ok & (shown < patterns.slot_count(v)), shown, -1)
    return {"col": col, "shown": shown}


def slot_cells(v, spec) -> np.ndarray:
    """(slots, 2): the (row, k) the spec's A fragment (A in shared memory: the document's layout)
    gives every slot."""
    k = patterns.k_of(v)
    if v.a_shared:
        s = np.arange(patterns.slot_count(v))
        return np.stack([s // k, s % k], axis=-1)
    return model.fragments(v, spec)["A"].cells.reshape(-1, 2)


def _mismatch(v, spec, what: str, hw: np.ndarray, want: np.ndarray, frag, name, tag, subject, seen, extra="") -> Result:
    """One identifies-* result: hw and want (128, n, 2); -1 in hw where nothing was seen."""
    prop = f"identifies-{what}"
    fid = frag.fragment.id if frag is not None else model.fragments(v, spec)["D"].fragment.id
    span = str(frag.fragment.span) if frag is not None else str(model.fragments(v, spec)["D"].fragment.span)
    known = (hw >= 0).all(axis=-1)
    wrong = known & (hw != want).any(axis=-1)
    total = hw.shape[0] * hw.shape[1]
    if not wrong.any() and known.all():
        return Result(v.spec, fid, prop, PROVED, location=span, subject=subject,
                      message=f"{tag}all {total} {what} elements where the {name} puts them{extra}")
    if not wrong.any():
        if what == "A" and known.sum() and v.n < patterns.k_of(v):  # N < K: k >= N meets no column
            return Result(v.spec, fid, prop, PROVED, location=span, subject=subject,
                          message=f"{tag}{int(known.sum())} of {total} A slots seen (N = {v.n} < K: the others meet "
                                  f"no column of D), each where the {name} puts it")
        t, i = (int(x) for x in np.argwhere(~known)[0])
        return Result(v.spec, fid, prop, REFUTED, location=span, subject=subject,
                      counterexample={"thread": t, "i": i, seen: None},
                      message=f"{tag}{_thread(t)} {what.lower()}{i}: the patterns show no {('cell' if what == 'D' else 'D element')} "
                              f"for it ({int((~known).sum())} of {total} not seen)")
    t, i = (int(x) for x in np.argwhere(wrong)[0])
    (r, c), (sr, sc) = hw[t, i], want[t, i]
    axis_names = ("row", "col") if what == "D" else ("row", "k")
    if frag is not None:
        loc, label = where(frag.fragment, t, i, 0 if r != sr else 1), f"{_thread(t)} {what.lower()}{i}"
    else:  # A in shared memory: element (m, k) of the image, placed by 9.7.15.5.1.2's layout
        loc, label = span, f"A[{t}][{i}] of the shared-memory image ({v.swizzle} swizzle, 9.7.15.5.1.2)"
    return Result(v.spec, fid, prop, REFUTED, location=loc, subject=subject,
                  counterexample={"thread": t, "i": i, seen: [int(r), int(c)], "spec": [int(sr), int(sc)],
                                  "differ": int(wrong.sum())},
                  message=f"{tag}{label}: {seen} {axis_names[0]} {r}, {axis_names[1]} {c}; {name} {axis_names[0]} {sr}, "
                          f"{axis_names[1]} {sc} ({int(wrong.sum())} of {total} differ)")


def identifies(v, spec, d, tag, subject) -> list:
    frag = model.fragments(v, spec)
    dg = frag["D"]
    seen = "dump" if d.synthetic else "hardware"
    try:
        obs = observe(v, spec, d)
    except KeyError as exc:
        return [Result(v.spec, dg.fragment.id, f"identifies-{x}", REFUTED, location=f"{d.path}:1:1", subject=subject,
                       message=f"{tag}the dump has not {exc.args[0]} the identification needs") for x in "DA"]
    cells = slot_cells(v, spec)
    shown, col = obs["shown"], obs["col"]
    hw_d = np.stack([np.where(shown >= 0, cells[np.maximum(shown, 0), 0], -1), col], axis=-1)
    rowname = "document's layout of A's image" if v.a_shared else "spec's A fragment"
    out = [_mismatch(v, spec, "D", hw_d, dg.cells, dg, "spec", tag, subject, seen,
                     extra=f" (rows as the {rowname} names them)")]
    # each A slot: the spec's D row of the elements that show it, and their column mod K
    k = patterns.k_of(v)
    slots = patterns.slot_count(v)
    flat = shown.ravel()
    good = (flat >= 0) & (col.ravel() >= 0)
    lo = np.full((slots, 2), 1 << 30, dtype=np.int64)
    hi = np.full((slots, 2), -1, dtype=np.int64)
    got = np.stack([dg.cells[..., 0].ravel(), col.ravel() % k], axis=-1)[good]
    np.minimum.at(lo, flat[good], got)
    np.maximum.at(hi, flat[good], got)
    hw_a = np.where((lo == hi).all(axis=-1, keepdims=True), lo, -1)
    split = (hi >= 0).all(axis=-1) & (lo != hi).any(axis=-1)
    if split.any():  # one slot met in two rows or two k: report it as seen at its first
        hw_a[split] = lo[split]
    hw_a = np.where((hi >= 0).all(axis=-1, keepdims=True), hw_a, -1)
    if v.a_shared:
        out.append(_mismatch(v, spec, "A", hw_a.reshape(v.m, k, 2), cells.reshape(v.m, k, 2), None,
                             "document's layout", tag, subject, seen))
    else:
        ga = frag["A"]
        out.append(_mismatch(v, spec, "A", hw_a.reshape(128, ga.n, 2), ga.cells, ga, "spec", tag, subject, seen,
                             extra=" (rows as the spec's D fragment names them)"))
    return out


def malformed(d, message: str) -> Result:
    return Result(d.path, None, "dump", SPEC_ERROR, location=f"{d.path}:1:1", message=message,
                  detail={"dump": d.path, "source": d.header.get("source")})


def check_dump(v, spec, d) -> list:
    t0 = time.perf_counter()
    tag = SYNTHETIC_TAG if d.synthetic else ""
    subject = v.id
    try:
        frag = model.fragments(v, spec)
    except model.WgmmaModelError as exc:
        return [malformed(d, str(exc))]
    why = fits(v, frag, d)
    out = [malformed(d, why)] if why else [_predicts(v, spec, d, tag, subject)] + identifies(v, spec, d, tag, subject)
    seconds = (time.perf_counter() - t0) / len(out)
    return [r.but(seconds=seconds, detail={"dump": d.path, "source": d.header["source"]}) for r in out]


def crosscheck(specs: list, paths: list) -> tuple:
    """specs: [(path, Spec)] of wgmma specs; the wgmma dumps at `paths` -> (results, stats)."""
    from checker.probe import wgmma_sp as sp
    from checker.probe.wgmma_ptx import variants

    known, by_spec = {}, {}
    for path, spec in specs:
        path = path.replace("\\", "/")
        if spec.family == "wgmma.sp":  # the sparse A and the dense D its same_as names
            view = sp.joined(spec, path)
            pairs = [(v, view) for v in sp.variants(spec, path, d_spec=view.dense)]
        else:
            pairs = [(v, spec) for v in variants(spec, path)]
        for v, s in pairs:
            known[v.id] = (v, s, path)
        by_spec.setdefault(spec.shape, path)
    results, seen, other = [], set(), 0
    for p, d in readable(paths, dumps.read, results):
        hit = known.get(d.header["variant"])
        if hit is not None and hit[0].instruction != d.header["instruction"]:
            # the spec's variant of that name runs another instruction: the spec was edited since
            # the dump was recorded (b1's .and.popc), or the dump's header contradicts itself
            results.append(Result(hit[2], None, "predicts", REFUTED, location=f"{p}:1:1", subject=d.header["variant"],
                                  message=f"the dump names {d.header['variant']} but ran {d.header['instruction']}; "
                                          f"that variant runs {hit[0].instruction} (re-record or delete the dump)",
                                  detail={"dump": p, "source": d.header["source"]}))
            continue
        if hit is None:
            shape = "m64nNk" + d.header["variant"].split(".")[0].split("k")[-1] + (".sp" if ".sp." in d.header["variant"] else "")
            if shape in by_spec:
                results.append(Result(by_spec[shape], None, "predicts", REFUTED, location=f"{p}:1:1",
                                      subject=d.header["variant"],
                                      message=f"the dump is of {d.header['variant']}, which {by_spec[shape]} does not "
                                              "describe (re-record or delete the dump)",
                                      detail={"dump": p, "source": d.header["source"]}))
            else:
                other += 1
            continue
        seen.add(d.header["variant"])
        results.extend(check_dump(hit[0], hit[1], d))
    sources = {r.detail.get("dump"): r.detail.get("source") for r in results if r.subject}
    stats = {"dumps": len(paths), "other_specs": other,
             "synthetic": sum(s == "synthetic" for s in sources.values()),
             "hardware": sum(s == "hardware" for s in sources.values()),
             "without_dump": sorted(set(known) - seen)}
    return results, stats


def render_text(results: list, stats: dict, seconds: float) -> str:
    lines = error_lines(results)
    groups = by_subject(results)
    def agreed(rs):
        ctas = next((r.detail.get("ctas") for r in rs if r.detail.get("ctas")), None)
        return f"{ctas} CTAs bit for bit, every A and D element where the spec puts it"

    found, agree = verdict_lines(groups, 52, agreed)
    lines += found
    if stats["without_dump"]:
        lines.append(f"{len(stats['without_dump'])} wgmma variants of these specs have no dump")
    lines += synthetic_only(stats, "wgmma")
    malformed_ = sum(r.property == "dump" for r in results)
    lines.append(f"{stats['dumps']} wgmma dumps ({stats['hardware']} hardware, {stats['synthetic']} synthetic, "
                 f"{stats['other_specs']} of other specs): {agree} agree, {len(groups) - agree} disagree, "
                 f"{malformed_} malformed; {seconds:.2f} s")
    return text_lines(lines)
