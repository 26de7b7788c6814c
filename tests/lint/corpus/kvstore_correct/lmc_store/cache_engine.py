# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Callable, List, Optional

# Third Party
import torch

# First Party
from lmc_store.config import LMCacheEngineConfig
from lmc_store.gpu_connector import KVCaches, VLLMNestedTupleGPUConnector
from lmc_store.storage_backend import (
    LocalDiskBackend,
    MemoryObj,
    PinnedMemoryAllocator,
)
from lmc_store.utils import CacheEngineKey, get_store_stream, iter_chunks, logger


class LMCacheEngine:
    def __init__(
        self,
        config: LMCacheEngineConfig,
        model_name: str,
        worker_id: int,
        gpu_connector: VLLMNestedTupleGPUConnector,
    ):
        self.config = config
        self.model_name = model_name
        self.worker_id = worker_id
        self.gpu_connector = gpu_connector
        self.allocator = PinnedMemoryAllocator(int(2 * 1024**3))
        self.backend = LocalDiskBackend(config, self.allocator)

    @torch.inference_mode()
    def store(self, tokens: torch.Tensor, kvcaches: KVCaches) -> int:
        device = kvcaches[0][0].device
        store_stream = get_store_stream(device)
        store_stream.wait_stream(torch.cuda.current_stream(device))

        keys: List[CacheEngineKey] = []
        memory_objs: List[MemoryObj] = []
        for start, end, chunk_hash in iter_chunks(
            tokens, self.config.chunk_size, self.config.save_unfull_chunk
        ):
            shape = self.gpu_connector.get_shape(end - start)
            memory_obj = self.allocator.allocate(shape, self.config.kv_dtype)
            if memory_obj is None:
                logger.warning("Pinned pool exhausted, storing %d chunks", len(keys))
                break
            self.gpu_connector.from_gpu(
                memory_obj, start, end, kvcaches=kvcaches, stream=store_stream
            )
            keys.append(CacheEngineKey(self.model_name, self.worker_id, chunk_hash))
            memory_objs.append(memory_obj)

        store_stream.synchronize()
        self.backend.batched_submit_put_task(keys, memory_objs)
        return len(keys)


class LMCacheOffloadRunner:
    """Runs the forward pass on a dedicated stream and offloads the new KV."""

    def __init__(self, engine: LMCacheEngine, device: torch.device):
        self.engine = engine
        self.device = device
        self.compute_stream = torch.cuda.Stream(device=device)

    def execute_model(
        self,
        forward: Callable[[torch.Tensor], KVCaches],
        input_ids: torch.Tensor,
        store_tokens: Optional[torch.Tensor] = None,
    ) -> KVCaches:
        with torch.cuda.stream(self.compute_stream):
            kvcaches = forward(input_ids.to(self.device, non_blocking=True))
            if store_tokens is not None:
                self.engine.store(store_tokens, kvcaches)
        return kvcaches
