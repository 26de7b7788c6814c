"""Verification's compare, on the GPU: a kernel (compare.cu, shipped as compare.ptx) reads each
sampled block's GPU source and its pinned host copy in place and flags the pairs that differ.

Nothing is copied to compare: the host copies are read over the bus in the host-to-device
direction, which stores leave idle, so a check adds no bytes and no descriptors to the stores'
own device-to-host calls (docs/decisions.md, "Verification compares on the GPU").

`python3 -m kvguard.runtime.build_compare` rebuilds compare.ptx from compare.cu with NVRTC 12.8
(`pip install nvidia-cuda-nvrtc-cu12==12.8.93`); a test checks the shipped PTX is current. The
PTX targets compute_50, so the driver's JIT compiles it for any GPU the batch copies run on.
"""

from __future__ import annotations

import ctypes
from array import array
from pathlib import Path

import torch

from kvguard.runtime import driver

SOURCE = Path(__file__).with_name("compare.cu")
PTX = Path(__file__).with_name("compare.ptx")
KERNEL = b"kvguard_compare_pairs"
CHUNK_BYTES = 16384  # compare.cu's CHUNK (a test checks): bytes of a pair a thread block compares
_THREADS = 256
_MAX_PAIRS_PER_LAUNCH = 65535  # the grid's y dimension


class PairComparer:
    """Compares pairs of equal-sized memory ranges on a stream; one check at a time.

    `enqueue` writes the pairs' addresses into pinned arrays the kernel reads and launches it;
    `differing` reads its flags once the stream has passed that point. The arrays are reused
    by the next `enqueue`, so a caller waits for one check before it makes the next.
    """

    def __init__(self, calls: driver.KernelCalls, pinned: bool, capacity: int = 1024) -> None:
        self._calls = calls
        self._pinned = pinned
        code, self._module = calls.load(PTX.read_bytes())
        driver.check(code, "cuModuleLoadData (kvguard's compare kernel)")
        try:
            code, self._function = calls.function(self._module, KERNEL)
            driver.check(code, "cuModuleGetFunction (kvguard's compare kernel)")
            self._arguments = [ctypes.c_uint64() for _ in range(4)]
            self._parameters = (ctypes.c_void_p * 4)(*[ctypes.addressof(a) for a in self._arguments])
            self._pairs = 0
            self._allocate(max(1, capacity))
        except Exception:
            calls.unload(self._module)  # the error above is the one raised
            raise

    def enqueue(self, stream: int, src: array[int], dst: array[int], sizes: array[int]) -> None:
        """On `stream`: compare `sizes[i]` bytes at `src[i]` with those at `dst[i]`, each i."""
        count = len(sizes)
        if count > self._capacity:
            self._allocate(count)
        for column, values in zip(self._columns, (src, dst, sizes), strict=True):
            ctypes.memmove(column.data_ptr(), values.buffer_info()[0], 8 * count)
        ctypes.memset(self._flags.data_ptr(), 0, 4 * count)
        self._pairs = count
        for first in range(0, count, _MAX_PAIRS_PER_LAUNCH):
            pairs = min(_MAX_PAIRS_PER_LAUNCH, count - first)
            chunks = (max(sizes[first : first + pairs]) + CHUNK_BYTES - 1) // CHUNK_BYTES
            for argument, base, width in zip(self._arguments, self._device_bases, (8, 8, 8, 4), strict=True):
                argument.value = base + width * first
            code = self._calls.launch(
                self._function, chunks, pairs, _THREADS, stream, ctypes.addressof(self._parameters)
            )
            driver.check(code, "cuLaunchKernel (kvguard's compare kernel)")

    def differing(self) -> list[int]:
        """Indices of the last `enqueue`'s pairs that differ."""
        flags = array("i")
        flags.frombytes(ctypes.string_at(self._flags.data_ptr(), 4 * self._pairs))
        return [index for index, flag in enumerate(flags) if flag]

    def close(self) -> None:
        driver.check(self._calls.unload(self._module), "cuModuleUnload (kvguard's compare kernel)")

    def _allocate(self, capacity: int) -> None:
        self._columns = [torch.zeros(capacity, dtype=torch.int64, pin_memory=self._pinned) for _ in range(3)]
        self._flags = torch.zeros(capacity, dtype=torch.int32, pin_memory=self._pinned)
        self._device_bases = [driver.device_address(t.data_ptr()) for t in (*self._columns, self._flags)]
        self._capacity = capacity
