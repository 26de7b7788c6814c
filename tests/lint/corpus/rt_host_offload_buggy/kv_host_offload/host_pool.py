# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
import threading
from typing import List

from cuda.bindings import runtime as cudart

from .rt_utils import CUDA_CHECK


class HostBlockPool:

    def __init__(self, num_blocks: int, block_bytes: int):
        self.num_blocks = num_blocks
        self.block_bytes = block_bytes
        self.base = CUDA_CHECK(cudart.cudaHostAlloc(num_blocks * block_bytes,
                                                    cudart.cudaHostAllocPortable))
        self._free: List[int] = list(range(num_blocks - 1, -1, -1))
        self._lock = threading.Lock()

    def ptr(self, block_id: int) -> int:
        return self.base + block_id * self.block_bytes

    def allocate(self, count: int) -> List[int]:
        with self._lock:
            if count > len(self._free):
                raise MemoryError(f"host KV tier exhausted ({count} > {len(self._free)})")
            return [self._free.pop() for _ in range(count)]

    def release(self, block_ids: List[int]) -> None:
        with self._lock:
            self._free.extend(block_ids)
