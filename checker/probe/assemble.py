"""Build generated kernels without a GPU: ptxas, found on PATH or under CUDA_HOME."""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass

from checker import temps
from checker.catalogue import min_sm
from checker.errors import UsageError
from checker.probe.ptx import generate, kernel_name

TIMEOUT_S = 60


@dataclass
class Built:
    variant: object
    sm: int
    ok: bool | None  # None: skipped, the variant needs a newer target
    message: str
    cubin: bytes = b""


@functools.lru_cache(maxsize=None)
def version(tool: str) -> str:
    """The last line of `ptxas --version`, e.g. `Build cuda_13.0.r13.0/compiler.36424714_0`."""
    proc = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=TIMEOUT_S,
                          stdin=subprocess.DEVNULL)
    lines = proc.stdout.strip().splitlines()
    return "ptxas " + (lines[-1].strip() if lines else "(unknown version)")


def ptxas() -> str:
    found = shutil.which("ptxas")
    if found:
        return found
    for base in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if base and os.path.exists(os.path.join(base, "bin", "ptxas")):
            return os.path.join(base, "bin", "ptxas")
    raise UsageError("--compile-only needs NVIDIA's ptxas (CUDA toolkit) on PATH or under CUDA_HOME; none was found")


def build(v, sm: int, tool: str | None = None) -> Built:
    tool = tool or ptxas()
    need = min_sm(v)
    if need is None:
        return Built(v, sm, False, f"no minimum target is known for {v.shape} .{v.atype}")
    if sm < need:
        return Built(v, sm, None, f"needs sm_{need}")
    unknown = cannot_target(tool, f"sm_{sm}")
    if unknown:
        return Built(v, sm, None, unknown)
    ok, message, cubin = assemble(tool, generate(v, sm), sm, kernel_name(v))
    return Built(v, sm, ok, message, cubin)


def assemble(tool: str, text: str, sm: int | str, name: str) -> tuple:
    """(assembled?, "assembled" or ptxas's message naming `name`.ptx, cubin) for one PTX text;
    `sm` 90 or "90a" (wgmma needs the architecture-specific target)."""
    with temps.folder("checker-ptxas-") as tmp:  # removed on SIGINT/SIGTERM too
        src = os.path.join(tmp, name + ".ptx")
        out = os.path.join(tmp, name + ".cubin")
        with open(src, "w") as fh:
            fh.write(text)
        try:
            proc = subprocess.run([tool, f"-arch=sm_{sm}", "-o", out, src], capture_output=True, text=True,
                                  timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return False, f"ptxas took longer than {TIMEOUT_S} s", b""
        if proc.returncode != 0:
            return False, (proc.stderr or proc.stdout).strip().replace(src, name + ".ptx")[:2000], b""
        with open(out, "rb") as fh:
            return True, "assembled", fh.read()


def cannot_target(tool: str, target: str) -> str | None:
    """Why this ptxas cannot assemble for `target` (sm_90, sm_90a), or None: its "Value 'sm_70' is
    not defined for option 'gpu-name'" is about the toolkit (CUDA 13 dropped sm_70), not a spec."""
    known = known_targets(tool)
    return f"{version(tool)} cannot target {target}" if known and target not in known else None


@functools.lru_cache(maxsize=None)
def known_targets(tool: str) -> frozenset:
    """The sm_XY targets this ptxas names in its --help ("Allowed values for this option: ...")."""
    import re

    proc = subprocess.run([tool, "--help"], capture_output=True, text=True, timeout=TIMEOUT_S,
                          stdin=subprocess.DEVNULL)
    return frozenset(re.findall(r"'(sm_\d+[af]?)'", proc.stdout))
