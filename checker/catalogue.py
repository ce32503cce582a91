"""The support table: every shape x type x layout of mma.sync and mma.sp that the PTX ISA defines,
with each row's minimum PTX version and target (isa-support.yaml, from
../shared/ptx-isa/mma-support-table.md), and what it says of one variant. The probe (which targets
to build for, which minimums ptxas must confirm) and the coverage report (what is specified and
proved against it) both read it here, so neither imports the other."""
from __future__ import annotations

import functools
from importlib.resources import files

import yaml

_AND_POPC = ("7.1", 80)  # ".and.popc (7.1, sm_80)", in the table's b1 rows


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
