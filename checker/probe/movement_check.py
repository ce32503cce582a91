"""Crosscheck of ldmatrix / stmatrix / movmatrix dumps with the specs; no GPU needed.

Per dump of a form, two results:
  predicts     every output word of every warp (registers, or the whole shared buffer after
               stmatrix, poison included) equals what the spec's reading predicts from the inputs
  identifies   by the code pairs, where the hardware took (or put) every (lane, element): the
               tile row (the lane whose address held it) and the column, against the reading
Per dump of the chained kernel: predicts-fragments (the six ldmatrix registers) and predicts-D
(A.B + C as matrices, placed by m16n8k16's D layout). A disagreement names the lane and element
and is located at the line of the formula piece that gives the spec's answer.
"""
from __future__ import annotations

import time

import numpy as np

from checker.probe import movement_dump as dumps
from checker.probe.crosscheck import where
from checker.probe.findings import readable
from checker.probe import movement_model as model
from checker.probe.movement_forms import IMAGE_BYTES, ROW_BYTES, SLOTS
from checker.results import PROVED, REFUTED, SPEC_ERROR, Result
from checker.semantics.registers import ModelError

SYNTHETIC_TAG = "[synthetic dump: reference model, not hardware] "


def _shapes(form) -> dict:
    regs = (32, form.count)
    return {"image": (IMAGE_BYTES,), "addresses": (32,), "registers_in": regs, "registers_out": regs,
            "image_out": (IMAGE_BYTES,)}


def fits(form, d) -> str | None:
    """Why the dump's arrays are not this form's, or None."""
    ins, outs = model.inputs_of(form)
    for name in ins + outs:
        a = d.arrays.get(name)
        want = _shapes(form)[name]
        if a is None:
            return f"the dump has no {name}"
        if a.shape[1:] != want or (a.dtype == np.uint8) != (name.startswith("image")):
            return (f"arrays.{name} is {list(a.shape)} {a.dtype}, but {form.instruction} takes "
                    f"[warps, {', '.join(map(str, want))}] (spec {form.layout.span})")
    return None if form.family == "movmatrix" else model.distinct_rows(form, d.arrays["addresses"])


def _first_difference(form, name: str, got: np.ndarray, want: np.ndarray, d) -> tuple:
    """(message, location, counterexample) of the first differing word."""
    w, *rest = (int(x) for x in np.argwhere(got != want)[0])
    if name.startswith("image"):
        (byte,) = rest
        offsets = model.tile_offsets(form, d.arrays["addresses"][w:w + 1])[0]
        hit = np.argwhere((offsets == byte) | ((form.elem_bits == 16) & (offsets + 1 == byte)))
        said = "no element (it keeps what the image held)"
        loc = str(form.layout.span)
        if len(hit):
            lane, i = (int(x) for x in hit[0])
            said = f"lane {lane} e{i} (row {form.rows[lane, i]}, col {form.cols[lane, i]})"
            loc = where(form.layout, lane, i, 0)
        return (f"warp {w}, byte {byte} of the buffer (row slot {byte // ROW_BYTES}): dump {int(got[w, byte]):02x}, "
                f"spec predicts {int(want[w, byte]):02x}, where the spec stores {said}", loc,
                {"warp": w, "byte": byte, "dump": int(got[w, byte]), "predicted": int(want[w, byte])})
    lane, reg = rest
    i = next(k for k in range(form.n) if k // form.per_register == reg
             and (model.unpack(form, got[w:w + 1, lane:lane + 1]) != model.unpack(form, want[w:w + 1, lane:lane + 1]))[0, 0, k])
    return (f"warp {w}, lane {lane}, register {reg}: dump {int(got[w, lane, reg]):08x}, spec predicts "
            f"{int(want[w, lane, reg]):08x} (e{i} first differs; the spec reads row {form.rows[lane, i]}, col "
            f"{form.cols[lane, i]})", where(form.layout, lane, i, 0),
            {"warp": w, "lane": lane, "register": reg, "dump": int(got[w, lane, reg]),
             "predicted": int(want[w, lane, reg])})


def _predicts(form, d, tag) -> Result:
    want = model.predict(form, d.arrays)
    mask = model.defined_bits(form) if form.family != "chain" else None
    for name, predicted in want.items():
        got = d.arrays[name]
        if mask is not None:  # container bits the reading leaves unsaid are not compared
            got, predicted = got & mask, predicted & mask
        if (got != predicted).any():
            bad = int((got != predicted).reshape(got.shape[0], -1).any(axis=1).sum())
            msg, loc, cex = _first_difference(form, name, got, predicted, d)
            return Result(form.spec_path, form.layout.id, "predicts", REFUTED, location=loc, counterexample=cex,
                          subject=form.name, message=f"{tag}{bad} of {d.warps} warps differ; first: {msg}")
    which = "bit for bit" if mask is None else "in every bit the reading says (the values' bits of each container)"
    return Result(form.spec_path, form.layout.id, "predicts", PROVED, location=str(form.layout.span), subject=form.name,
                  message=f"{tag}all {d.warps} warps predicted {which}", detail={"warps": d.warps, "masked": mask is not None})


def _row_of(addresses: np.ndarray) -> np.ndarray:
    """slot -> the lowest lane whose address is that row slot, -1 where none."""
    owner = np.full(SLOTS, -1)
    for lane in range(31, -1, -1):
        owner[int(addresses[lane]) // ROW_BYTES] = lane
    return owner


def _pairs(d) -> list:
    """[(first warp, second warp)] of the code pairs in the dump's blocks."""
    starts, at_ = {}, 0
    for b in d.header["blocks"]:
        starts[b["kind"]] = at_
        at_ += b["count"]
    out = []
    for kind, w in starts.items():
        first, _, k = kind.partition("#")
        if first in ("row-code", "lane-code"):
            second = ("col-code" if first == "row-code" else "element-code") + "#" + k
            if second in starts:
                out.append((w, starts[second]))
    return out


def hardware_cells(form, d, w1: int, w2: int) -> np.ndarray:
    """(32, n, 2): the (row, col) the code pair shows for every (lane, i); -1 where it shows none.
    A row is the lane whose address the element's row slot was (it may be one the table gives no address)."""
    bits = form.elem_bits
    out = np.full((32, form.n, 2), -1, dtype=np.int64)
    if form.family == "ldmatrix":
        owner = _row_of(d.arrays["addresses"][w1])
        slot = model.unpack(form, d.arrays["registers_out"][w1]).astype(np.int64) - model.ROW_CODE[bits]
        col = model.unpack(form, d.arrays["registers_out"][w2]).astype(np.int64) - model.COL_CODE[bits]
        ok = (slot >= 0) & (slot < SLOTS) & (col >= 0) & (col < ROW_BYTES * 8 // bits)
        out[..., 0] = np.where(ok, owner[np.clip(slot, 0, SLOTS - 1)], -1)
        out[..., 1] = np.where(ok & (out[..., 0] >= 0), col, -1)
        return out
    if form.family == "movmatrix":
        lane = model.unpack(form, d.arrays["registers_out"][w1]).astype(np.int64) - model.LANE_CODE[bits]
        elem = model.unpack(form, d.arrays["registers_out"][w2]).astype(np.int64) - model.ELEMENT_CODE[bits]
        ok = (lane >= 0) & (lane < 32) & (elem >= 0) & (elem < form.n)
        a_rows, a_cols = form.source_positions
        out[..., 0] = np.where(ok, a_rows[np.clip(lane, 0, 31), np.clip(elem, 0, form.n - 1)], -1)
        out[..., 1] = np.where(ok, a_cols[np.clip(lane, 0, 31), np.clip(elem, 0, form.n - 1)], -1)
        return out
    owner = _row_of(d.arrays["addresses"][w1])
    step = bits // 8
    first, second = d.arrays["image_out"][w1].astype(np.int64), d.arrays["image_out"][w2].astype(np.int64)
    if step == 2:
        first, second = first[0::2] | first[1::2] << 8, second[0::2] | second[1::2] << 8
    per_row = ROW_BYTES // step
    for cell in np.nonzero((first != (1 << bits) - 1) | (second != (1 << bits) - 1))[0]:
        lane, i = int(first[cell]) - model.LANE_CODE[bits], int(second[cell]) - model.ELEMENT_CODE[bits]
        if 0 <= lane < 32 and 0 <= i < form.n:
            seen = out[lane, i, 0] != -1
            out[lane, i] = (-2, -2) if seen else (owner[cell // per_row], cell % per_row)
    return out


def _identifies(form, d, tag, seen: str) -> Result:
    pairs = _pairs(d)
    if not pairs:
        return Result(form.spec_path, form.layout.id, "identifies", REFUTED, location=f"{d.path}:1:1", subject=form.name,
                      message=f"{tag}the dump has no code pair (row-code#k and col-code#k, or lane-code#k and element-code#k)")
    spec = np.stack([form.rows, form.cols], axis=-1)
    for w1, w2 in pairs:
        hw = hardware_cells(form, d, w1, w2)
        wrong = (hw != spec).any(axis=-1)
        if wrong.any():
            lane, i = (int(x) for x in np.argwhere(wrong)[0])
            (r, c), (sr, sc) = hw[lane, i], spec[lane, i]
            verb = "was stored at" if form.family == "stmatrix" else "holds"
            if r == -2:
                shown = "two cells (stored twice)"
            elif r < 0 or c < 0:
                shown = "nothing a code names" + (" (stored nowhere)" if form.family == "stmatrix" else "")
            else:
                shown = f"row {r}, col {c}" + (f" (the row at lane {r}'s address, which the document's table gives "
                                                "no row)" if r >= form.tile_rows and form.family != "movmatrix" else "")
            letter = "d" if form.family == "movmatrix" else "e"
            return Result(form.spec_path, form.layout.id, "identifies", REFUTED,
                          location=where(form.layout, lane, i, 0 if r != sr else 1), subject=form.name,
                          counterexample={"warp": w1, "lane": lane, "i": i, seen: [int(r), int(c)],
                                          "spec": [int(sr), int(sc)], "differ": int(wrong.sum())},
                          message=f"{tag}lane {lane} {letter}{i} {verb} {seen}: {shown}; spec row {sr}, col {sc} "
                                  f"({int(wrong.sum())} of {32 * form.n} elements differ, code warps {w1} and {w2})")
    return Result(form.spec_path, form.layout.id, "identifies", PROVED, location=str(form.layout.span), subject=form.name,
                  message=f"{tag}all {32 * form.n} elements where the reading puts them ({len(pairs)} code pairs)")


_CHAIN_SHAPES = {"image": ((IMAGE_BYTES,), np.uint8), "addresses_a": ((32,), np.uint32),
                 "addresses_b": ((32,), np.uint32), "c_in": ((32, 4), np.uint32), "d_out": ((32, 4), np.uint32),
                 "fragments_out": ((32, 6), np.uint32)}


def _chain(chain, d, tag) -> list:
    out = []
    for name, (shape, dtype) in _CHAIN_SHAPES.items():
        a = d.arrays.get(name)
        if a is None or a.shape[1:] != shape or a.dtype != dtype:
            return [malformed(d, f"arrays.{name} must be [warps, {', '.join(map(str, shape))}] {np.dtype(dtype).name}")]
    why = model.distinct_rows(None, d.arrays["addresses_a"]) or model.distinct_rows(None, d.arrays["addresses_b"])
    if why:
        return [malformed(d, why)]
    want = chain.predict(d.arrays)
    for name, prop, frag in (("fragments_out", "predicts-fragments", chain.a.layout), ("d_out", "predicts-D", None)):
        got, pred = d.arrays[name], want[name]
        loc = str(frag.span) if frag is not None else chain.location
        if got.shape != pred.shape:
            return [malformed(d, f"arrays.{name} is {list(got.shape)}, not {list(pred.shape)}")]
        if (got == pred).all():
            out.append(Result(chain.spec_path, None, prop, PROVED, location=loc, subject=chain.name,
                              message=f"{tag}all {d.warps} warps predicted bit for bit", detail={"warps": d.warps}))
            continue
        w, lane, reg = (int(x) for x in np.argwhere(got != pred)[0])
        out.append(Result(chain.spec_path, None, prop, REFUTED, location=loc, subject=chain.name,
                          counterexample={"warp": w, "lane": lane, "register": reg, "dump": int(got[w, lane, reg]),
                                          "predicted": int(pred[w, lane, reg])},
                          message=f"{tag}warp {w}, lane {lane}, register {reg} of {name}: dump {int(got[w, lane, reg]):08x}, "
                                  f"spec predicts {int(pred[w, lane, reg]):08x}"))
    return out


def malformed(d, message: str) -> Result:
    return Result(d.path, None, "dump", SPEC_ERROR, location=f"{d.path}:1:1", message=message,
                  detail={"dump": d.path, "source": d.header.get("source")})


def too_old(subject, d) -> str | None:
    """Why a hardware dump's kernel cannot hold its instruction, or None: ptxas assembles no kernel
    for a target the support table does not give the form (the reader ties the device to the
    target), so such a dump was not made by the probe."""
    target = d.header["kernel"]["target"]
    ok, why = (True, None) if d.synthetic else subject.supports(target)
    return None if ok else f"at kernel.target: a kernel for {target} cannot hold {subject.instruction}: it {why}"


def check_dump(subject, d) -> list:
    """The results of one dump against its form (or the chain)."""
    t0 = time.perf_counter()
    tag = SYNTHETIC_TAG if d.synthetic else ""
    why = too_old(subject, d)
    try:
        if why:
            out = [malformed(d, why)]
        elif subject.family == "chain":
            out = _chain(subject, d, tag)
        else:
            why = fits(subject, d)
            # .b8x16 forms: values too narrow for the code pairs; `predicts` checks every warp's bits
            out = ([malformed(d, why)] if why else
                   [_predicts(subject, d, tag)] + ([] if subject.packed else
                                                   [_identifies(subject, d, tag, "dump" if d.synthetic else "hardware")]))
    except (ModelError, ValueError, OverflowError) as exc:  # inputs the model refuses (a NaN C of the chain, ...)
        out = [malformed(d, f"the model cannot run the dump's inputs under {subject.spec_path}: {exc}")]
    seconds = (time.perf_counter() - t0) / len(out)
    return [r.but(seconds=seconds, detail={"dump": d.path, "source": d.header["source"]}) for r in out]


def _kind(family: str, instruction: str) -> tuple:
    """What names a form's spec: its family and shape (ldmatrix.m8n8); the chain is one of its own."""
    return ("chain",) if family == "chain" else (family, (instruction.split(".") + [""] * 4)[3])


def crosscheck(subjects: dict, paths: list) -> tuple:
    """subjects: instruction -> Form or Chain. -> (results, stats)."""
    results, seen, other, unpredicted = [], set(), 0, []
    described = {_kind(s.family, s.instruction): s.spec_path for s in subjects.values()}
    for p, d in readable(paths, dumps.read, results):
        subject = subjects.get(d.header["instruction"])
        if subject is None:
            # of a form a given spec does not describe: stale, renamed or forged, it is said, as the
            # mma and wgmma crosschecks say theirs; counted with the other specs' it went unseen
            spec = described.get(_kind(d.header["family"], d.header["instruction"]))
            if spec is None:
                other += 1
            else:
                results.append(Result(spec, None, "predicts", REFUTED, location=f"{p}:1:1",
                                      subject=d.header["instruction"].replace(".sync.aligned", "").replace(".shared", ""),
                                      message=f"the dump is of {d.header['instruction']}, which {spec} does not "
                                              "describe (re-record or delete the dump)",
                                      detail={"dump": p, "source": d.header["source"]}))
            continue
        if subject.family != "chain" and not subject.predictable:
            unpredicted.append(f"{p}: {subject.unpredictable}")
            continue
        seen.add(d.header["instruction"])
        results.extend(check_dump(subject, d))
    stats = {"dumps": len(paths), "other_specs": other, "unpredicted": unpredicted,
             "synthetic": len({r.detail["dump"] for r in results if r.detail.get("source") == "synthetic"}),
             "hardware": len({r.detail["dump"] for r in results if r.detail.get("source") == "hardware"}),
             "without_dump": sorted(i for i, s in subjects.items() if i not in seen
                                    and (s.family == "chain" or s.predictable))}
    return results, stats
