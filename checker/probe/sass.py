"""SASS opcode counts of an assembled kernel, read with NVIDIA's nvdisasm: they tell whether an
mma ran on tensor cores (HMMA, IMMA, DMMA, BMMA) or was emulated by the assembler with ordinary
instructions, as m8n8k4 .f16 is on sm_90.

nvdisasm comes from the CUDA toolkit, or from NVIDIA's `nvidia-cuda-nvdisasm` wheel (the [gpu]
and [test] extras), which installs it under site-packages/nvidia/cu*/bin.
"""
from __future__ import annotations

import functools
import glob
import os
import re
import shutil
import subprocess
import sys
from collections import Counter

from checker import temps

WGMMA = ("HGMMA", "IGMMA", "QGMMA", "BGMMA")  # Hopper's warpgroup mma: HGMMA.64x256x16.F32.BF16
TENSOR_CORE = ("HMMA", "IMMA", "DMMA", "BMMA", "QMMA") + WGMMA
_INSN = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*(?:\.(?:\d+x\d+x\d+|[A-Z0-9_]+))*)")
_FUNCTION = re.compile(r"^\s*\.section\s+\.text\.([A-Za-z_$][\w$]*),", re.M)
TIMEOUT_S = 60


@functools.lru_cache(maxsize=None)
def nvdisasm() -> str | None:
    found = shutil.which("nvdisasm")
    if found:
        return found
    bases = [os.environ.get("CUDA_HOME"), "/usr/local/cuda"] + [os.path.join(p, "nvidia") for p in sys.path if p]
    for base in filter(None, bases):
        for cand in [os.path.join(base, "bin", "nvdisasm")] + sorted(glob.glob(os.path.join(base, "cu*", "bin", "nvdisasm"))):
            if os.access(cand, os.X_OK):
                return cand
    return None


def opcode_counts(text: str) -> dict:
    """nvdisasm listing -> {full opcode: count}, predicates dropped."""
    return dict(sorted(Counter(m.group(1) for m in _INSN.finditer(text)).items()))


def tensor_ops(counts: dict) -> str:
    """The tensor-core instructions of a kernel, e.g. `IMMA.8816.S8.S8 x2`; '' where none."""
    return ", ".join(f"{op} x{n}" for op, n in counts.items() if op.split(".")[0] in TENSOR_CORE)


def summarize(counts: dict) -> dict:
    tc = sum(n for op, n in counts.items() if op.split(".")[0] in TENSOR_CORE)
    return {"opcodes": counts, "tensor_core": tc, "emulated": tc == 0}


def disassemble(cubin: bytes, tool: str | None = None) -> dict | None:
    """{opcodes, tensor_core, emulated}, or None where no nvdisasm is found."""
    text = listing(cubin, tool)
    return None if text is None else summarize(opcode_counts(text))


def disassemble_each(cubin: bytes, tool: str | None = None) -> dict | None:
    """{kernel name: {opcodes, tensor_core, emulated}} for a cubin of many kernels; None where no
    nvdisasm is found."""
    text = listing(cubin, tool)
    if text is None:
        return None
    cuts = list(_FUNCTION.finditer(text))
    return {m.group(1): summarize(opcode_counts(text[m.end():cuts[i + 1].start() if i + 1 < len(cuts) else None]))
            for i, m in enumerate(cuts)}


def listing(cubin: bytes, tool: str | None = None) -> str | None:
    """nvdisasm's listing of a cubin, or None where no nvdisasm is found."""
    tool = tool or nvdisasm()
    if tool is None:
        return None
    with temps.folder("checker-nvdisasm-") as tmp:  # removed on SIGINT/SIGTERM too
        path = os.path.join(tmp, "kernel.cubin")
        temps.write_new(path, cubin)
        proc = subprocess.run([tool, "-c", path], capture_output=True, text=True, timeout=TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise RuntimeError(f"nvdisasm failed: {proc.stderr.strip()[:500]}")
    return proc.stdout
