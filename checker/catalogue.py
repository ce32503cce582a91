"""The support table: every shape x type x layout of mma.sync and mma.sp that the PTX ISA defines,
with each row's minimum PTX version and target (isa-support.yaml, from
document/ptx-isa/mma-support-table.md), and what it says of one variant. The probe (which targets
to build for, which minimums ptxas must confirm) and the coverage report (what is specified and
proved against it) both read it here, so neither imports the other."""
from __future__ import annotations

import functools
import re
from importlib.resources import files

import yaml

_AND_POPC = ("7.1", 80)  # ".and.popc (7.1, sm_80)", in the table's b1 rows

# wgmma's minimums: the PTX ISA Notes and Target ISA Notes of 9.7.15.5.2 (dense, False) and 9.7.15.6.3
# (sparse, True), read in 9.1 and 9.2 by tests/unit/test_isa_support.py. The probe builds its kernels
# at them (ptxas confirms each: "Feature 'WGMMA with mixed integer types' requires PTX ISA .version
# 8.4") and the coverage report shows them.
WGMMA_PTX = {False: "8.0", True: "8.2"}
WGMMA_MIXED_INT_PTX = "8.4"  # "Support for .u8.s8 and .s8.u8 as .atype.btype introduced in PTX ISA version 8.4"
WGMMA_TARGET = "sm_90a"  # "Requires sm_90a."


@functools.lru_cache(maxsize=None)
def support() -> tuple:
    """The packaged table; trusted data of this repository, still read with the safe loader. Read
    once per process: the probe asks it for every variant and target. The file stays beside the
    report, whose pages name it by that path."""
    return tuple(yaml.safe_load(files("checker.report").joinpath("isa-support.yaml").read_text(encoding="utf-8")))


def version_key(version: str) -> tuple:
    """A PTX ISA version as something that orders: "7.10" after "7.8"."""
    return tuple(int(x) for x in version.split("."))


def table_rows(v) -> list:
    """The rows of the table that name variant `v` (a semantics.variants.Variant)."""
    layouts = {f"{v.alayout}.{v.blayout}", v.alayout, v.blayout}
    return [r for r in support() if r["instruction"] == "mma" and r["kind"] is None and v.shape in r["shapes"]
            and v.atype in r["ab"] and v.btype in r["ab"] and v.dtype in r["cd"] and v.ctype in r["cd"]
            and layouts & set(r["layouts"])]


def minimum(v) -> tuple | None:
    """(PTX version, sm) the support table gives for the variant, or None where no row names it."""
    rows = table_rows(v)
    if not rows:
        return None
    ptx = min((r["ptx"] for r in rows), key=version_key)
    sm = min(int(r["target"].split()[0].removeprefix("sm_").rstrip("a")) for r in rows)
    if v.op == "and":
        ptx, sm = max(ptx, _AND_POPC[0], key=version_key), max(sm, _AND_POPC[1])
    return ptx, sm


def min_sm(v) -> int | None:
    """The table's minimum target for the variant, or None where it has no row."""
    m = minimum(v)
    return None if m is None else m[1]


# --- ldmatrix, stmatrix, movmatrix (isa-movement.yaml) ------------------------------------------

@functools.lru_cache(maxsize=None)
def movement_support() -> tuple:
    """The forms of ldmatrix, stmatrix and movmatrix the PTX ISA defines, one row per shape and
    group of types, with their minimum PTX version and targets."""
    return tuple(yaml.safe_load(files("checker.report").joinpath("isa-movement.yaml").read_text(encoding="utf-8")))


def movement_forms(row: dict) -> list:
    """The instructions of one row, spelled as the specs' `forms:` spell them."""
    out = []
    for num in row["nums"] or [None]:
        for trans in row["trans"]:
            for type_ in row["types"]:
                parts = [row["instruction"], "sync", "aligned", row["shape"]] + ([num] if num else [])
                parts += ["trans"] if trans else []
                parts += ["shared"] if row["instruction"] != "movmatrix" else []
                out.append(".".join(parts + [type_]))
    return out


def movement_row(instruction: str) -> dict | None:
    """The support row that defines an ldmatrix / stmatrix / movmatrix instruction, or None."""
    return next((r for r in movement_support() if instruction in movement_forms(r)), None)


def target_parts(target: str) -> tuple:
    """"sm_100a" -> (100, "a"); "sm_90" -> (90, ""). A ValueError for anything else: a dump's
    target is read from a file, and "sm_" with 5,000 digits is past what int() converts."""
    found = re.fullmatch(r"sm_([0-9]{1,4})([af]?)", target)
    if found is None:
        raise ValueError(f"not a target: {target[:40]!r}")
    return int(found.group(1)), found.group(2)


def _family(sm: int) -> int:
    # sm_100 and sm_103 are one family, sm_120 and sm_121 another (ptxas: "PTX for .target sm_XYf
    # can be compiled to GPU targets sm_XZ, sm_XZf, sm_XZa where Z >= Y ... in same family")
    return sm // 10


def movement_supports(row: dict, target: str) -> tuple:
    """(whether `target` runs the row's forms, the first PTX ISA version that may name them there;
    or why not)."""
    sm, suffix = target_parts(target)
    if row["target"] is not None:
        need = target_parts(row["target"])[0]
        return (True, row["ptx"]) if sm >= need else (False, f"needs {row['target']} or higher")
    if target in row["arch"]:
        return True, row["ptx"]
    for fam in row["family"]:
        base = target_parts(fam)[0]
        if suffix in ("a", "f") and _family(sm) == _family(base) and sm >= base:
            return True, max(row["ptx"], row["family_ptx"], key=version_key)
    return False, (f"needs {'/'.join(row['arch'])}, or {'/'.join(row['family'])} or a later target of the family "
                   f"(§{row['section']} Target ISA Notes)")
