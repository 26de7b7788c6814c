# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
import ctypes
import threading

from cuda.bindings import driver

from .cuda_utils import cu_check


class PinnedStaging:
    """One page-locked host buffer, owned by at most one transfer at a time."""

    def __init__(self, nbytes: int):
        self.nbytes = nbytes
        self.ptr = cu_check(driver.cuMemHostAlloc(nbytes, driver.CU_MEMHOSTALLOC_PORTABLE))
        self._owner = threading.Semaphore(1)

    def acquire(self) -> None:
        self._owner.acquire()

    def release(self) -> None:
        self._owner.release()

    def view(self, nbytes: int) -> memoryview:
        return memoryview((ctypes.c_char * nbytes).from_address(self.ptr)).cast("B")

    def fill(self, payload: memoryview) -> None:
        ctypes.memmove(self.ptr, bytes(payload), len(payload))

    def close(self) -> None:
        cu_check(driver.cuMemFreeHost(self.ptr))
