"""Compile compare.cu to compare.ptx with NVRTC (libnvrtc.so.12 on the library path), for
compute_80: the driver JIT-compiles the PTX for the GPU it loads on."""

from __future__ import annotations

import ctypes
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    nvrtc = ctypes.CDLL("libnvrtc.so.12")
    program = ctypes.c_void_p()
    source = (HERE / "compare.cu").read_bytes()
    if nvrtc.nvrtcCreateProgram(ctypes.byref(program), source, b"compare.cu", 0, None, None):
        raise SystemExit("nvrtcCreateProgram failed")
    options = [b"--gpu-architecture=compute_80", b"-default-device", b"--std=c++17"]
    compiled = nvrtc.nvrtcCompileProgram(program, len(options),
                                         (ctypes.c_char_p * len(options))(*options))
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(program, log)
    if compiled:
        raise SystemExit(f"compare.cu did not compile:\n{log.value.decode()}")
    nvrtc.nvrtcGetPTXSize(program, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetPTX(program, ptx)
    (HERE / "compare.ptx").write_bytes(ptx.value)


if __name__ == "__main__":
    main()
