# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

import ctypes
import queue

import numpy as np

from nvmeswap import cudart
from nvmeswap.constants import AIO_BLOCK_SIZE, SWAP_BUFFER_COUNT


class PinnedSwapBuffer(object):

    def __init__(self, index: int, nbytes: int):
        self.index = index
        self.nbytes = nbytes
        self.ptr = cudart.host_alloc(nbytes)
        self.view = np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(self.ptr))


class SwapBufferPool(object):

    def __init__(self, buffer_bytes: int, count: int = SWAP_BUFFER_COUNT):
        aligned = (buffer_bytes + AIO_BLOCK_SIZE - 1) // AIO_BLOCK_SIZE * AIO_BLOCK_SIZE
        self.buffer_bytes = aligned
        self._free: "queue.Queue[PinnedSwapBuffer]" = queue.Queue()
        for i in range(count):
            self._free.put(PinnedSwapBuffer(i, aligned))

    def get(self) -> PinnedSwapBuffer:
        return self._free.get()

    def put(self, buffer: PinnedSwapBuffer) -> None:
        self._free.put(buffer)
