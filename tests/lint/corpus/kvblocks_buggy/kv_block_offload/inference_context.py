# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from typing import Dict, List

import torch

from .block_offload_manager import KVBlockOffloadManager
from .constants import DEFAULT_HOST_BLOCKS
from .host_block_pool import HostBlockPool

logger = logging.getLogger(__name__)


class PausableBlockContext:
    """Block-based KV memory for dynamic batching; paused requests keep their KV in host memory."""

    def __init__(self, num_layers: int, block_size: int, num_heads: int, head_dim: int,
                 num_blocks: int, dtype: torch.dtype = torch.bfloat16, host_blocks: int = DEFAULT_HOST_BLOCKS):
        block_numel = 2 * num_layers * block_size * num_heads * head_dim
        self.memory_buffer = torch.empty((num_blocks, block_numel), dtype=dtype, device=torch.cuda.current_device())
        self.offload_manager = KVBlockOffloadManager(self.memory_buffer, HostBlockPool(host_blocks, block_numel, dtype))
        self.block_free: List[int] = list(range(num_blocks))
        self.request_blocks: Dict[int, List[int]] = {}
        self.paused_slots: Dict[int, List[int]] = {}

    def allocate_blocks(self, request_id: int, count: int) -> List[int]:
        if count > len(self.block_free):
            raise RuntimeError("out of KV blocks")
        blocks = [self.block_free.pop() for _ in range(count)]
        self.request_blocks.setdefault(request_id, []).extend(blocks)
        return blocks

    def release_request(self, request_id: int) -> None:
        self.block_free.extend(self.request_blocks.pop(request_id, []))

    def pause_request(self, request_id: int) -> None:
        blocks = self.request_blocks.pop(request_id)
        self.paused_slots[request_id] = self.offload_manager.offload(blocks)
        self.block_free.extend(blocks)
        logger.debug("paused request %d (%d blocks)", request_id, len(blocks))

    def resume_request(self, request_id: int) -> List[int]:
        slots = self.paused_slots.pop(request_id)
        blocks = self.allocate_blocks(request_id, len(slots))
        self.offload_manager.restore(slots, blocks)
        return blocks
