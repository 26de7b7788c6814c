import logging
from typing import Dict, List

import torch

from .block_swapper import KVBlockSwapper
from .inference_config import DynamicInferenceConfig

logger = logging.getLogger(__name__)


class DynamicInferenceContext:
    """Bookkeeping for the requests currently resident in the paged KV memory buffer."""

    def __init__(self, config: DynamicInferenceConfig, device: torch.device):
        self.config = config
        self.memory_buffer = torch.empty((config.gpu_blocks, config.block_bytes), dtype=torch.uint8, device=device)
        self.request_kv_length_offsets = torch.zeros(config.max_requests, dtype=torch.int32, device=device)
        self.request_to_kv_block_ids = torch.full(
            (config.max_requests, 64), -1, dtype=torch.int32, device=device
        )
        self._host_kv_lengths = torch.empty(config.max_requests, dtype=torch.int32, pin_memory=True)
        self.swapper = KVBlockSwapper(config, self.memory_buffer)
        self.swapped: Dict[int, List[int]] = {}
        self.total_request_count = 0

    def pause_requests(self, request_ids: List[int], block_table: Dict[int, List[int]]) -> Dict[int, int]:
        """Swaps the KV blocks of `request_ids` out to the host pool and returns their current KV lengths."""
        self.swapper.fence()
        blocks = [b for rid in request_ids for b in block_table.get(rid, [])]
        if blocks:
            host_slots = self.swapper.swap_out(blocks)
            cursor = 0
            for rid in request_ids:
                n = len(block_table.get(rid, []))
                self.swapped[rid] = host_slots[cursor : cursor + n]
                cursor += n

        count = self.total_request_count
        self.swapper.copy_to_host(self._host_kv_lengths[:count], self.request_kv_length_offsets[:count])
        if blocks:
            self.swapper.wait()

        # expect: KVG003
        lengths = self._host_kv_lengths[:count].tolist()
        logger.info("paused %d requests, %d blocks swapped", len(request_ids), len(blocks))
        return {rid: lengths[rid] for rid in request_ids if rid < count}
