# SPDX-License-Identifier: Apache-2.0
from concurrent.futures import Future, ThreadPoolExecutor

import torch

from kv_prefetch.config import PrefetchConfig
from kv_prefetch.slots import LoadSlot
from vllm.logger import init_logger

logger = init_logger(__name__)


class AsyncBlockLoader:
    """Uploads CPU KV blocks into device slots from a background thread."""

    def __init__(self, config: PrefetchConfig, device: torch.device):
        self.device = device
        self.stream = torch.Stream(device=device)
        self.executor = ThreadPoolExecutor(
            max_workers=config.num_loader_threads,
            thread_name_prefix=config.thread_name_prefix,
            initializer=self._init_thread,
        )

    def _init_thread(self) -> None:
        torch.accelerator.set_device_index(self.device.index)
        torch.accelerator.set_stream(self.stream)

    def submit(self, slot: LoadSlot, cpu_cache: torch.Tensor, cpu_block_ids: list[int]) -> Future:
        return self.executor.submit(self._load, slot, cpu_cache, cpu_block_ids)

    def _load(self, slot: LoadSlot, cpu_cache: torch.Tensor, cpu_block_ids: list[int]) -> int:
        self.stream.wait_event(slot.released_event)
        for i, block_id in enumerate(cpu_block_ids):
            slot.buffer[i].copy_(cpu_cache[block_id], non_blocking=True)
        slot.num_blocks = len(cpu_block_ids)
        slot.loaded_event.record(self.stream)
        return slot.num_blocks

    def shutdown(self) -> None:
        self.executor.shutdown(wait=True)
