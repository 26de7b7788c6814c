"""Rebuild compare.ptx from compare.cu: `python3 -m kvguard.runtime.build_compare` (NVRTC 12.8,
`pip install nvidia-cuda-nvrtc-cu12==12.8.93`). Build tooling, which the package does not
import: the runtime only loads the PTX."""

from __future__ import annotations

import ctypes
import importlib.util
from pathlib import Path

from kvguard.runtime.compare import PTX, SOURCE

_NVRTC_OPTIONS = (b"--gpu-architecture=compute_50", b"-default-device", b"--std=c++17")


def compile_ptx() -> bytes:
    """compare.cu compiled by NVRTC (libnvrtc.so.12 from the nvidia-cuda-nvrtc-cu12 wheel, or
    on the library path) for compute_50; the driver JIT-compiles it for the GPU it loads on."""
    nvrtc = ctypes.CDLL(_nvrtc_library())
    program = ctypes.c_void_p()
    if nvrtc.nvrtcCreateProgram(ctypes.byref(program), SOURCE.read_bytes(), b"compare.cu", 0, None, None):
        raise RuntimeError("nvrtcCreateProgram failed")
    try:
        options = (ctypes.c_char_p * len(_NVRTC_OPTIONS))(*_NVRTC_OPTIONS)
        compiled = nvrtc.nvrtcCompileProgram(program, len(_NVRTC_OPTIONS), options)
        size = ctypes.c_size_t()
        if compiled:
            nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value)
            nvrtc.nvrtcGetProgramLog(program, log)
            raise RuntimeError(f"compare.cu does not compile:\n{log.value.decode()}")
        nvrtc.nvrtcGetPTXSize(program, ctypes.byref(size))
        ptx = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetPTX(program, ptx)
        return ptx.value
    finally:
        nvrtc.nvrtcDestroyProgram(ctypes.byref(program))


def _nvrtc_library() -> str:
    spec = importlib.util.find_spec("nvidia.cuda_nvrtc")
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            library = Path(folder) / "lib" / "libnvrtc.so.12"
            if library.exists():
                return str(library)
    return "libnvrtc.so.12"


def main() -> None:
    PTX.write_bytes(compile_ptx())
    print(f"wrote {PTX}")


if __name__ == "__main__":
    main()
