"""vLLM KV connector (worker side): loads matched prefixes before the forward and saves
new chunks after it, keeping hot chunks in pinned host memory."""

from typing import Dict, List

import torch

from lmc_retrieve.gpu_connector import VLLMPagedGPUConnector


class LMCacheConnectorWorker:
    def __init__(self, kv_caches: List[torch.Tensor], chunk_blocks: int):
        self.gpu_connector = VLLMPagedGPUConnector(kv_caches)
        self.chunk_shape = (len(kv_caches), chunk_blocks) + tuple(kv_caches[0].shape[1:])
        self.dtype = kv_caches[0].dtype
        self.hot_cache: Dict[str, torch.Tensor] = {}
        self.save_events: Dict[str, torch.cuda.Event] = {}

    def start_load_kv(self, metadata) -> None:
        events = []
        for load in metadata.loads:
            chunk = self.hot_cache.get(load.key)
            if chunk is None:
                continue
            events.append(self.gpu_connector.to_gpu(chunk, load.block_ids))
        compute = torch.cuda.current_stream()
        for ev in events:
            compute.wait_event(ev)

    def wait_for_save(self, metadata) -> None:
        for save in metadata.saves:
            chunk = torch.empty(self.chunk_shape, dtype=self.dtype, pin_memory=True)
            self.save_events[save.key] = self.gpu_connector.from_gpu(chunk, save.block_ids)
            self.hot_cache[save.key] = chunk
