"""Run probe kernels on an NVIDIA GPU through NVIDIA's cuda-python driver bindings (the [gpu]
extra). Every driver call is checked; D is poisoned with 0xFF bytes before each launch, and a
warp whose D still holds only the poison is an error, not a result.

One launch per variant: one 32-thread block per pattern warp.
"""
from __future__ import annotations

import time

import numpy as np

from checker.errors import CheckerError, UsageError

POISON = 0xFF


def _driver():
    try:
        from cuda.bindings import driver
    except ImportError:
        try:
            from cuda import cuda as driver  # cuda-python < 12.6
        except ImportError:
            raise UsageError("running the probe needs NVIDIA's cuda-python (pip install "
                             "'ptx-fragment-checker[gpu]') and a GPU with its driver; "
                             "--compile-only and --synthetic need neither") from None
    return driver


class Device:
    def __init__(self, ordinal: int = 0):
        self.cu = _driver()
        err = self.cu.cuInit(0)[0]
        if err != self.cu.CUresult.CUDA_SUCCESS:
            raise UsageError(f"no usable NVIDIA GPU: cuInit answered {self._name(err)}; "
                             "--compile-only and --synthetic need no GPU")
        count = self.check(self.cu.cuDeviceGetCount(), "cuDeviceGetCount")
        if count <= ordinal:
            raise UsageError(f"no CUDA device {ordinal}: the driver sees {count}")
        self.dev = self.check(self.cu.cuDeviceGet(ordinal), "cuDeviceGet")
        name = self.check(self.cu.cuDeviceGetName(256, self.dev), "cuDeviceGetName")
        self.name = bytes(name).split(b"\0")[0].decode(errors="replace")
        attr = self.cu.CUdevice_attribute
        major = self.check(self.cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.dev),
                            "cuDeviceGetAttribute")
        minor = self.check(self.cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.dev),
                            "cuDeviceGetAttribute")
        self.sm = int(major) * 10 + int(minor)
        self.driver_version = int(self.check(self.cu.cuDriverGetVersion(), "cuDriverGetVersion"))
        self.ctx = self.check(self.cu.cuDevicePrimaryCtxRetain(self.dev), "cuDevicePrimaryCtxRetain")
        self.check(self.cu.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")
        self.stream = self.check(self.cu.cuStreamCreate(0), "cuStreamCreate")
        self.launch_seconds: dict = {}

    def _name(self, err) -> str:
        _, name = self.cu.cuGetErrorName(err)
        return name.decode() if isinstance(name, bytes) else str(err)

    def check(self, out, what: str):
        """The value of a CUDA driver call, or a CheckerError naming the call (the movement
        kernels' launch, checker/probe/movement_gpu.py, checks its calls with it too)."""
        err, rest = out[0], out[1:]
        if err != self.cu.CUresult.CUDA_SUCCESS:
            raise CheckerError(f"CUDA {what} failed: {self._name(err)}")
        return rest[0] if len(rest) == 1 else (rest or None)

    def describe(self) -> dict:
        try:
            from importlib.metadata import version

            bindings = "cuda-python " + version("cuda-python")
        except Exception:  # pragma: no cover - a source install
            bindings = None
        return {"name": self.name, "sm": self.sm, "driver_version": self.driver_version, "cuda_version": bindings}

    def run(self, image: bytes, kernel: str, inputs: dict, bits: dict, counts: dict) -> np.ndarray:
        """Launch `kernel` once over every warp of inputs (A, B, C: (warps, 32, count) uint64);
        -> D (warps, 32, count) uint64."""
        cu = self.cu
        warps = len(inputs["A"])
        blob = np.frombuffer(image + b"\0", dtype=np.uint8)
        module = self.check(cu.cuModuleLoadData(blob.ctypes.data), f"cuModuleLoadData ({kernel})")
        ptrs, host = {}, {}
        try:
            fn = self.check(cu.cuModuleGetFunction(module, kernel.encode()), "cuModuleGetFunction")
            for op in "ABCD":
                dtype = np.dtype("<u4" if bits[op] == 32 else "<u8")
                host[op] = (np.ascontiguousarray(inputs[op].astype(dtype)) if op != "D"
                            else np.zeros((warps, 32, counts["D"]), dtype=dtype))
                ptrs[op] = self.check(cu.cuMemAlloc(host[op].nbytes), "cuMemAlloc")
                if op == "D":
                    self.check(cu.cuMemsetD8(ptrs[op], POISON, host[op].nbytes), "cuMemsetD8 (poison D)")
                else:
                    self.check(cu.cuMemcpyHtoD(ptrs[op], host[op].ctypes.data, host[op].nbytes), "cuMemcpyHtoD")
            args = ((ptrs["A"], ptrs["B"], ptrs["C"], ptrs["D"]), (None, None, None, None))
            t0 = time.perf_counter()
            self.check(cu.cuLaunchKernel(fn, warps, 1, 1, 32, 1, 1, 0, self.stream, args, 0), "cuLaunchKernel")
            self.check(cu.cuStreamSynchronize(self.stream), f"the {kernel} launch")
            self.launch_seconds[kernel] = time.perf_counter() - t0
            self.check(cu.cuMemcpyDtoH(host["D"].ctypes.data, ptrs["D"], host["D"].nbytes), "cuMemcpyDtoH")
        finally:
            for p in ptrs.values():
                cu.cuMemFree(p)
            cu.cuModuleUnload(module)
        d = host["D"].astype(np.uint64)
        full = np.uint64((1 << bits["D"]) - 1)
        untouched = (d == full).all(axis=(1, 2))
        if untouched.any():
            raise CheckerError(f"{kernel}: warp {int(np.nonzero(untouched)[0][0])} did not write D "
                               "(it still holds the 0xFF poison)")
        return d
