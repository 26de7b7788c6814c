# SPDX-License-Identifier: Apache-2.0
# Standard
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from typing import List, Tuple
import os

# Third Party
import torch

# First Party
from lmc_store.config import LMCacheEngineConfig
from lmc_store.gpu_connector import LayerwiseGPUConnector
from lmc_store.memory_management import MemoryObj, PinnedMemoryAllocator
from lmc_store.utils import CacheEngineKey, chunk_hash, logger


class LocalCPUBackend:
    def __init__(self, config: LMCacheEngineConfig):
        self.config = config
        self.hot_cache: "OrderedDict[CacheEngineKey, MemoryObj]" = OrderedDict()
        self.executor = ThreadPoolExecutor(
            max_workers=config.put_workers, thread_name_prefix="lmc-put"
        )

    def _put_task(self, key: CacheEngineKey, obj: MemoryObj) -> None:
        self.hot_cache[key] = obj
        if self.config.local_disk_path is None:
            return
        name = f"{key.model_name}_{key.layer_id}_{key.chunk_hash[:16]}.kv"
        path = os.path.join(self.config.local_disk_path, name)
        with open(path, "wb") as f:
            f.write(obj.tensor.view(torch.uint8).numpy().tobytes())

    def batched_submit_put(
        self, keys: List[CacheEngineKey], objs: List[MemoryObj]
    ) -> List[Future]:
        return [self.executor.submit(self._put_task, k, o) for k, o in zip(keys, objs)]


class LayerwiseCacheEngine:
    def __init__(
        self,
        model_name: str,
        config: LMCacheEngineConfig,
        gpu_connector: LayerwiseGPUConnector,
    ):
        self.model_name = model_name
        self.config = config
        self.gpu_connector = gpu_connector
        self.allocator = PinnedMemoryAllocator(config.max_local_cpu_bytes)
        self.storage_backend = LocalCPUBackend(config)

    def _chunk(self, tokens: List[int]) -> List[Tuple[int, int, str]]:
        out, prefix = [], ""
        for start in range(0, len(tokens), self.config.chunk_size):
            end = min(start + self.config.chunk_size, len(tokens))
            if end - start < self.config.chunk_size and not self.config.save_unfull_chunk:
                break
            prefix = chunk_hash(prefix, tokens[start:end])
            out.append((start, end, prefix))
        return out

    def store(
        self,
        tokens: List[int],
        kvcaches: List[Tuple[torch.Tensor, torch.Tensor]],
        slot_mapping: torch.Tensor,
    ) -> List[Future]:
        chunks = self._chunk(tokens)
        if not chunks:
            return []
        starts = [c[0] for c in chunks]
        ends = [c[1] for c in chunks]

        keys: List[CacheEngineKey] = []
        memory_objs: List[List[MemoryObj]] = []
        for layer_id in range(self.config.num_layers):
            layer_objs = []
            for start, end, h in chunks:
                shape = self.gpu_connector.get_shape(end - start)
                layer_objs.extend(
                    self.allocator.batched_allocate(shape, self.config.kv_dtype, 1)
                )
                keys.append(CacheEngineKey(self.model_name, layer_id, h))
            memory_objs.append(layer_objs)

        store_gen = self.gpu_connector.batched_from_gpu(
            memory_objs, starts, ends, kvcaches=kvcaches, slot_mapping=slot_mapping
        )
        for _ in store_gen:
            pass

        flat = [obj for layer in memory_objs for obj in layer]
        logger.info("Stored %d chunks x %d layers", len(chunks), len(memory_objs))
        return self.storage_backend.batched_submit_put(keys, flat)
