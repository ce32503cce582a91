"""One launch of a movement probe kernel on the GPU (checker.probe.gpu.Device's driver handle):
the arrays copied in, the outputs filled with 0xFF bytes first, one 32-thread block per warp,
the outputs copied back. A warp whose registers still hold only the poison is an error."""
from __future__ import annotations

import time

import numpy as np

from checker.errors import CheckerError
from checker.probe.gpu import POISON


def launch(device, image: bytes, kernel: str, params: tuple, inputs: dict, outputs: dict, warps: int,
           threads: int = 32) -> dict:
    """params: the kernel's parameter names in order; inputs: name -> array; outputs: name ->
    (shape, dtype); `warps` blocks of `threads` (a wgmma kernel: CTAs of 128). -> {output name: array}."""
    cu, check = device.cu, device.check
    blob = np.frombuffer(image + b"\0", dtype=np.uint8)
    module = check(cu.cuModuleLoadData(blob.ctypes.data), f"cuModuleLoadData ({kernel})")
    ptrs, host = [], {}
    try:
        fn = check(cu.cuModuleGetFunction(module, kernel.encode()), "cuModuleGetFunction")
        for name in params:
            if name in outputs:
                shape, dtype = outputs[name]
                buf = np.zeros(shape, dtype=dtype)
            else:
                buf = np.ascontiguousarray(inputs[name])
            ptr = check(cu.cuMemAlloc(max(1, buf.nbytes)), "cuMemAlloc")
            ptrs.append(ptr)
            if name in outputs:
                check(cu.cuMemsetD8(ptr, POISON, buf.nbytes), f"cuMemsetD8 (poison {name})")
                host[name] = (buf, ptr)
            else:
                check(cu.cuMemcpyHtoD(ptr, buf.ctypes.data, buf.nbytes), "cuMemcpyHtoD")
        args = (tuple(ptrs), tuple(None for _ in ptrs))
        t0 = time.perf_counter()
        check(cu.cuLaunchKernel(fn, warps, 1, 1, threads, 1, 1, 0, device.stream, args, 0), "cuLaunchKernel")
        check(cu.cuStreamSynchronize(device.stream), f"the {kernel} launch")
        device.launch_seconds[kernel] = time.perf_counter() - t0
        for buf, ptr in host.values():
            check(cu.cuMemcpyDtoH(buf.ctypes.data, ptr, buf.nbytes), "cuMemcpyDtoH")
    finally:
        for p in ptrs:
            cu.cuMemFree(p)
        cu.cuModuleUnload(module)
    got = {name: buf for name, (buf, _) in host.items()}
    for name, a in got.items():
        if a.dtype == np.uint32:
            untouched = (a == 0xFFFFFFFF).reshape(warps, -1).all(axis=1)
            if untouched.any():
                raise CheckerError(f"{kernel}: warp {int(np.nonzero(untouched)[0][0])} did not write {name} "
                                   "(it still holds the 0xFF poison)")
    return got
