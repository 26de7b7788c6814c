# SPDX-License-Identifier: Apache-2.0
from concurrent.futures import Future

import torch

from kv_prefetch.config import PrefetchConfig
from kv_prefetch.loader import AsyncBlockLoader
from kv_prefetch.slots import LoadSlot, SlotRing
from vllm.logger import init_logger

logger = init_logger(__name__)


class PrefetchOffloadWorker:
    """Prefetches offloaded KV blocks into device slots ahead of scheduling.

    start_prefetch() is called when the scheduler sees a CPU hit; apply_prefetched()
    runs on the model-runner thread right before the forward that needs the blocks.
    """

    def __init__(self, config: PrefetchConfig, gpu_cache: torch.Tensor, cpu_cache: torch.Tensor):
        assert gpu_cache.dtype == torch.int8 and cpu_cache.dtype == torch.int8
        assert cpu_cache.is_pinned()
        self.config = config
        self.device = gpu_cache.device
        self.gpu_cache = gpu_cache  # [num_gpu_blocks, block_bytes]
        self.cpu_cache = cpu_cache  # [num_cpu_blocks, block_bytes]
        self.ring = SlotRing.create(config.num_slots, config.max_blocks_per_slot,
                                    gpu_cache.shape[1], self.device)
        self.loader = AsyncBlockLoader(config, self.device)
        self.inflight: dict[str, tuple[LoadSlot, Future]] = {}

    def start_prefetch(self, req_id: str, cpu_block_ids: list[int]) -> bool:
        if len(cpu_block_ids) > self.config.max_blocks_per_slot or req_id in self.inflight:
            return False
        slot = self.ring.acquire(req_id)
        if slot is None:
            logger.info("No free prefetch slot for %s", req_id)
            return False
        future = self.loader.submit(slot, self.cpu_cache, cpu_block_ids)
        self.inflight[req_id] = (slot, future)
        return True

    def apply_prefetched(self, req_id: str, gpu_block_ids: list[int]) -> int:
        entry = self.inflight.pop(req_id, None)
        if entry is None:
            return 0
        slot, future = entry
        num_blocks = future.result()
        compute = torch.accelerator.current_stream()
        compute.wait_event(slot.loaded_event)
        dst = torch.tensor(gpu_block_ids[:num_blocks], dtype=torch.long, device=self.device)
        self.gpu_cache.index_copy_(0, dst, slot.buffer[:num_blocks])
        slot.released_event.record(compute)
        self.ring.release(slot)
        return num_blocks

    def abort(self, req_id: str) -> None:
        entry = self.inflight.pop(req_id, None)
        if entry is not None:
            slot, future = entry
            future.result()
            self.ring.release(slot)

    def shutdown(self) -> None:
        for req_id in list(self.inflight):
            self.abort(req_id)
        self.loader.shutdown()
