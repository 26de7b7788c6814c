"""Offloads finished KV blocks to pinned host memory on a dedicated stream."""

import logging

import torch

from kvstore.ops.ordering import order_behind_compute

logger = logging.getLogger(__name__)


class BlockOffloader:
    def __init__(self, num_blocks, block_numel, device="cuda"):
        self.device_blocks = torch.empty(num_blocks, block_numel, device=device)
        self.host_blocks = torch.empty(num_blocks, block_numel, pin_memory=True)
        self.offload_stream = torch.cuda.Stream()
        self.done = None

    def offload(self, block_ids):
        # The helper is imported but the call was dropped in a refactor.
        with torch.cuda.stream(self.offload_stream):
            for block_id in block_ids:
                # expect: KVG001
                self.host_blocks[block_id].copy_(self.device_blocks[block_id], non_blocking=True)
            self.done = torch.cuda.Event()
            self.done.record()
        logger.debug("offloading %d blocks", len(block_ids))

    def wait(self):
        if self.done is not None:
            self.done.synchronize()
