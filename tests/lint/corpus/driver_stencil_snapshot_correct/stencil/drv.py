"""cuda-python driver helpers: error checking, NVRTC compilation, kernel launch."""
import ctypes
from typing import Sequence, Tuple

import numpy as np
from cuda.bindings import driver as cu
from cuda.bindings import nvrtc


class DriverError(RuntimeError):
    pass


def ck(result):
    err, *rest = result
    if isinstance(err, nvrtc.nvrtcResult):
        ok = err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    else:
        ok = err == cu.CUresult.CUDA_SUCCESS
    if not ok:
        raise DriverError(f"{err!r}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def compile_module(source: str, name: str, arch: str) -> cu.CUmodule:
    prog = ck(nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], []))
    opts = [f"--gpu-architecture={arch}".encode(), b"-default-device"]
    ck(nvrtc.nvrtcCompileProgram(prog, len(opts), opts))
    size = ck(nvrtc.nvrtcGetPTXSize(prog))
    ptx = b" " * size
    ck(nvrtc.nvrtcGetPTX(prog, ptx))
    image = np.char.array(ptx)
    return ck(cu.cuModuleLoadData(image.ctypes.data))


def launch(fn: cu.CUfunction, grid: Tuple[int, int], block: Tuple[int, int],
           args: Sequence, types: Sequence, stream=0, shmem: int = 0) -> None:
    ck(cu.cuLaunchKernel(fn, grid[0], grid[1], 1, block[0], block[1], 1, shmem, stream,
                         (tuple(args), tuple(types)), 0))


F32 = ctypes.c_float
I32 = ctypes.c_int
