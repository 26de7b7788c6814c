# SPDX-License-Identifier: Apache-2.0
from typing import Optional

import torch

from vllm.logger import init_logger

from simple_offload.cuda_utils import BatchMemcpyParams, build_params, copy_blocks
from simple_offload.metadata import SimpleCPUOffloadMetadata

logger = init_logger(__name__)


class SimpleCPUOffloadWorker:
    def __init__(self, num_cpu_blocks: int):
        self.num_cpu_blocks = num_cpu_blocks
        self.load_stream = torch.cuda.Stream()
        self.store_stream = torch.cuda.Stream()
        self.cpu_caches: dict[str, torch.Tensor] = {}
        self._load_params: Optional[BatchMemcpyParams] = None
        self._store_params: Optional[BatchMemcpyParams] = None
        self._pending_loads: dict[str, torch.Event] = {}
        self._pending_stores: dict[str, torch.Event] = {}

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        for name, gpu_cache in kv_caches.items():
            self.cpu_caches[name] = torch.empty(
                (self.num_cpu_blocks, *gpu_cache.shape[1:]),
                dtype=gpu_cache.dtype,
                device="cpu",
                pin_memory=True,
            )
        # host -> device: the pinned source is not written while a load is pending
        self._load_params = build_params(self.cpu_caches, kv_caches, self.load_stream)
        self._store_params = build_params(kv_caches, self.cpu_caches, self.store_stream)

    def start_load_kv(self, metadata: SimpleCPUOffloadMetadata) -> None:
        assert self._load_params is not None
        if not metadata.loads:
            return
        self.load_stream.wait_stream(torch.cuda.current_stream())
        for req_id, (cpu_ids, gpu_ids) in metadata.loads.items():
            copy_blocks(cpu_ids, gpu_ids, self._load_params)
            event = torch.Event()
            event.record(self.load_stream)
            self._pending_loads[req_id] = event

    def wait_for_save(self, metadata: SimpleCPUOffloadMetadata) -> None:
        assert self._store_params is not None
        if not metadata.stores:
            return
        self.store_stream.wait_stream(torch.cuda.current_stream())
        for req_id, (gpu_ids, cpu_ids) in metadata.stores.items():
            num_bytes = copy_blocks(gpu_ids, cpu_ids, self._store_params)
            event = torch.Event()
            event.record(self.store_stream)
            self._pending_stores[req_id] = event
            logger.debug("store %s: %d bytes queued", req_id, num_bytes)

    def get_finished(self) -> tuple[set[str], set[str]]:
        done_stores = {r for r, e in self._pending_stores.items() if e.query()}
        done_loads = {r for r, e in self._pending_loads.items() if e.query()}
        for r in done_stores:
            del self._pending_stores[r]
        for r in done_loads:
            del self._pending_loads[r]
        return done_stores, done_loads
