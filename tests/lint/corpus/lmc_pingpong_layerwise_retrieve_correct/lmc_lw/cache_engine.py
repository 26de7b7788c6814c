"""Layer-wise retrieve in the shape of LMCacheEngine.retrieve_layer, and the vLLM side that
advances it from the attention layers (LMCacheConnectorV1: start_load_kv / wait_for_layer_load)."""

from collections import OrderedDict
from typing import Dict, List, Tuple

import torch

from lmc_lw.gpu_connector import VLLMBufferLayerwiseGPUConnector
from lmc_lw.memory_management import MemoryObj, PinMemoryAllocator


class LayerwiseCPUBackend:
    def __init__(self, allocator: PinMemoryAllocator):
        self.allocator = allocator
        self.hot_cache: "OrderedDict[Tuple[str, int], MemoryObj]" = OrderedDict()

    def allocate(self, chunk_hash: str, layer_id: int, shape, dtype: torch.dtype) -> MemoryObj:
        """Hand the store path a pinned object to fill; it is looked up by retrieve later."""
        obj = self.allocator.allocate(shape, dtype)
        if obj is None:
            raise RuntimeError("CPU tier is full")
        self.hot_cache[(chunk_hash, layer_id)] = obj
        return obj

    def get(self, chunk_hash: str, layer_id: int) -> MemoryObj:
        return self.hot_cache[(chunk_hash, layer_id)]


class LMCacheEngine:
    def __init__(self, connector: VLLMBufferLayerwiseGPUConnector, backend: LayerwiseCPUBackend, chunk_size: int):
        self.gpu_connector = connector
        self.backend = backend
        self.chunk_size = chunk_size
        self.num_layers = connector.num_layers

    def retrieve_layer(self, chunk_hashes: List[str], num_tokens: int, **kwargs):
        starts = list(range(0, num_tokens, self.chunk_size))
        ends = [min(s + self.chunk_size, num_tokens) for s in starts]
        mem_obj_consumer = self.gpu_connector.batched_to_gpu(starts, ends, **kwargs)
        next(mem_obj_consumer)
        for layer_id in range(self.num_layers):
            memory_objs_layer = [self.backend.get(h, layer_id) for h in chunk_hashes]
            mem_obj_consumer.send(memory_objs_layer)
            yield
        next(mem_obj_consumer)
        next(mem_obj_consumer, None)
        yield


class LMCacheConnectorV1Impl:
    def __init__(self, engine: LMCacheEngine):
        self.engine = engine
        self.kv_caches: Dict[str, torch.Tensor] = {}
        self.layerwise_retriever = None

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        self.kv_caches = kv_caches

    def start_load_kv(self, batch) -> None:
        """One retriever for the whole batch: the connector has buffers for one at a time."""
        kvcaches = list(self.kv_caches.values())
        self.layerwise_retriever = self.engine.retrieve_layer(
            batch.chunk_hashes, batch.num_tokens, kvcaches=kvcaches, slot_mapping=batch.slot_mapping
        )
        next(self.layerwise_retriever)

    def wait_for_layer_load(self, layer_name: str) -> None:
        if self.layerwise_retriever is not None:
            next(self.layerwise_retriever, None)


def create_connector_and_engine(num_layers: int, hidden_dim_size: int, chunk_size: int, max_tokens: int,
                                cpu_bytes: int, local_rank: int, dtype=torch.bfloat16):
    connector = VLLMBufferLayerwiseGPUConnector(
        hidden_dim_size, num_layers, max_tokens, dtype, device=f"cuda:{local_rank}"
    )
    backend = LayerwiseCPUBackend(PinMemoryAllocator(cpu_bytes))
    return LMCacheConnectorV1Impl(LMCacheEngine(connector, backend, chunk_size))
