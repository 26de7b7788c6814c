# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.

from collections import deque
from typing import List


class ChunkAllocator:
    """Hands out fixed-size KV cache chunk ids from a preallocated buffer."""

    def __init__(self, total_count: int):
        self.total_count = total_count
        self._free = deque(range(total_count))

    @property
    def avail_count(self) -> int:
        return len(self._free)

    def allocate_chunks(self, num_chunks: int) -> List[int]:
        if num_chunks > len(self._free):
            raise RuntimeError(f"requested {num_chunks} chunks, {len(self._free)} available")
        return [self._free.popleft() for _ in range(num_chunks)]

    def release_chunks(self, chunk_ids: List[int]) -> None:
        self._free.extend(chunk_ids)
