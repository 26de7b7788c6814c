# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

import os

from nvmeswap.buffers import PinnedSwapBuffer
from nvmeswap.constants import AIO_BLOCK_SIZE


def write_swap_file(path: str, buffer: PinnedSwapBuffer, nbytes: int) -> int:
    padded = (nbytes + AIO_BLOCK_SIZE - 1) // AIO_BLOCK_SIZE * AIO_BLOCK_SIZE
    with open(path, "wb", buffering=0) as fh:
        written = fh.write(buffer.view[:padded])
        os.fsync(fh.fileno())
    return written


def read_swap_file(path: str, buffer: PinnedSwapBuffer, nbytes: int) -> int:
    with open(path, "rb", buffering=0) as fh:
        return fh.readinto(memoryview(buffer.view)[:nbytes])
