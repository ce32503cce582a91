"""The SASS check the dense and the sparse wgmma probe tests share (test_wgmma_probe.py,
test_wgmma_sp_probe.py): each kernel of a `checker probe --compile-only --format json` run is
held to the one warpgroup mma its instruction asks for, the same way for both, so that neither
can drift into a weaker copy of the other."""
import os
import re
import shutil

import pytest

# .ci/run sets CHECKER_REQUIRE_CUDA: its machines have ptxas and nvdisasm, so there a missing one
# fails, not skips
REQUIRED = bool(os.environ.get("CHECKER_REQUIRE_CUDA"))
HAVE_PTXAS = REQUIRED or bool(shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas"))
needs_ptxas = pytest.mark.skipif(not HAVE_PTXAS, reason="needs NVIDIA's ptxas (CUDA toolkit)")


def skip_without_nvdisasm() -> None:
    """Inside a test whose kernels assembled: the SASS part needs nvdisasm as well."""
    from checker.probe import sass

    if sass.nvdisasm() is None and not REQUIRED:
        pytest.skip("needs nvdisasm")


def the_one_warpgroup_mma(row: dict, sparse: bool) -> str:
    """The kind (HGMMA, QGMMA, IGMMA, BGMMA) of the one warpgroup mma in a kernel's SASS counts,
    failing the test unless there is exactly one, the probe's own check (`sass_ok`) passed, it is
    `.SP` exactly when the instruction is sparse, and its M x N x K is the instruction's m64nNkK."""
    from checker.probe import sass

    ops = {op: n for op, n in row["sass"]["opcodes"].items() if op.split(".")[0] in sass.WGMMA}
    assert sum(ops.values()) == 1 and row["sass_ok"] is True, (row["kernel"], ops)
    (op,) = ops
    kind, *modifiers = op.split(".")
    tagged = modifiers[:1] == ["SP"]
    assert tagged == sparse, (row["kernel"], op)
    shape = re.search(r"\.m64n(\d+)k(\d+)\.", row["instruction"])
    assert shape, row["instruction"]
    assert modifiers[tagged] == "64x{}x{}".format(*shape.groups()), (row["kernel"], op, row["instruction"])
    return kind
