import logging
from collections import OrderedDict, deque
from typing import Deque, Dict, List

import torch

from .config import KvCacheHostConfig
from .constants import OFFLOAD_STREAM_PRIORITY
from .copy_utils import copy_blocks_to_host

logger = logging.getLogger("tensorrt_llm")


class KVCacheManager:
    """Primary (GPU) block pool with an LRU of reusable blocks spilled to host."""

    def __init__(self, config: KvCacheHostConfig, device: torch.device):
        self.config = config
        self.device = device
        self.kv_pool = torch.zeros((config.num_primary_blocks, *config.block_shape),
                                   dtype=config.dtype, device=device)
        self.host_pool = torch.empty((config.num_host_blocks, *config.block_shape),
                                     dtype=config.dtype, pin_memory=True)
        self._offload_stream = torch.cuda.Stream(device=device,
                                                 priority=OFFLOAD_STREAM_PRIORITY)
        self._free_blocks: Deque[int] = deque(range(config.num_primary_blocks))
        self._free_host_slots: Deque[int] = deque(range(config.num_host_blocks))
        self._reusable: "OrderedDict[int, int]" = OrderedDict()
        self._host_index: Dict[int, int] = {}
        self._blocks_by_request: Dict[int, List[int]] = {}

    def get_block_ids(self, request_id: int) -> List[int]:
        return self._blocks_by_request[request_id]

    def prepare_resources(self, scheduled_batch) -> None:
        for request in scheduled_batch.context_requests:
            needed = self.config.blocks_for(request.prompt_len + request.max_new_tokens)
            shortfall = needed + self.config.min_free_blocks - len(self._free_blocks)
            if shortfall > 0:
                self._evict(shortfall)
            self._blocks_by_request[request.py_request_id] = [
                self._free_blocks.popleft() for _ in range(needed)
            ]

    def update_resources(self, scheduled_batch) -> None:
        for request in scheduled_batch.all_requests():
            if not request.is_finished:
                continue
            blocks = self._blocks_by_request.pop(request.py_request_id, [])
            for block_id, block_hash in zip(blocks, request.block_hashes):
                self._reusable[block_id] = block_hash
            self._free_blocks.extend(blocks[len(request.block_hashes):])

    def offload_request(self, request) -> None:
        """Spill a preempted request's blocks so they can be onboarded later."""
        blocks = self._blocks_by_request.pop(request.py_request_id, [])
        self._spill(blocks, request.block_hashes)

    def _evict(self, count: int) -> None:
        victims: List[int] = []
        hashes: List[int] = []
        while self._reusable and len(victims) < count:
            block_id, block_hash = self._reusable.popitem(last=False)
            victims.append(block_id)
            hashes.append(block_hash)
        logger.debug("evicting %d reusable blocks to host", len(victims))
        self._spill(victims, hashes)

    def _spill(self, blocks: List[int], hashes: List[int]) -> None:
        blocks = blocks[:len(self._free_host_slots)]
        if not blocks:
            return
        slots = [self._free_host_slots.popleft() for _ in blocks]
        compute = torch.cuda.current_stream(self.device)
        self._offload_stream.wait_stream(compute)
        done = copy_blocks_to_host(self.host_pool, self.kv_pool, blocks, slots,
                                   self._offload_stream)
        compute.wait_event(done)
        self._host_index.update(zip(hashes, slots))
        self._free_blocks.extend(blocks)
