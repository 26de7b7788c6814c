# SPDX-License-Identifier: Apache-2.0
# Standard
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Dict, Generator, List, Sequence, Tuple
import hashlib
import logging
import threading

# Third Party
import torch

# First Party
from layerkv.config import LayerwiseConfig
from layerkv.connector import LayerwiseGPUConnector
from layerkv.memory import MemoryObj, PinnedMemoryAllocator

logger = logging.getLogger(__name__)

LayerFn = Callable[[torch.Tensor], Tuple[torch.Tensor, torch.Tensor, torch.Tensor]]


class LocalCPUBackend:
    def __init__(self, num_workers: int):
        self._store: Dict[str, Tuple[MemoryObj, str]] = {}
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(num_workers, thread_name_prefix="lmc-put")

    def submit_put(self, key: str, memory_obj: MemoryObj) -> None:
        self._executor.submit(self._put_task, key, memory_obj)

    def _put_task(self, key: str, memory_obj: MemoryObj) -> None:
        assert memory_obj.tensor is not None
        raw = memory_obj.tensor.view(torch.uint8).numpy()
        digest = hashlib.blake2b(raw).hexdigest()
        with self._lock:
            old = self._store.pop(key, None)
            self._store[key] = (memory_obj, digest)
        if old is not None:
            old[0].ref_count_down()


class LayerwiseCacheEngine:
    def __init__(
        self,
        config: LayerwiseConfig,
        connector: LayerwiseGPUConnector,
        allocator: PinnedMemoryAllocator,
        backend: LocalCPUBackend,
    ):
        self.config = config
        self.connector = connector
        self.allocator = allocator
        self.backend = backend

    def store_layer(
        self,
        request_id: str,
        num_tokens: int,
        kvcaches: List[torch.Tensor],
        slot_offset: int,
    ) -> Generator[None, None, None]:
        size = self.config.chunk_size
        starts = list(range(0, num_tokens, size))
        ends = [min(s + size, num_tokens) for s in starts]
        if not self.config.save_unfull_chunk and ends[-1] - starts[-1] < size:
            starts.pop()
            ends.pop()
        memory_objs: List[List[MemoryObj]] = []
        for layer_id in range(self.config.num_layers):
            layer_objs = []
            for start, end in zip(starts, ends, strict=False):
                shape = self.connector.get_shape(end - start)
                obj = self.allocator.allocate(shape, self.config.dtype, layer_id, start)
                if obj is None:
                    raise RuntimeError("Out of pinned memory while storing layers")
                layer_objs.append(obj)
            memory_objs.append(layer_objs)

        gen = self.connector.batched_from_gpu(
            memory_objs, starts, ends, kvcaches, slot_offset
        )
        for _ in range(self.config.num_layers):
            next(gen)
            yield
        next(gen)

        for layer_objs in memory_objs:
            for obj in layer_objs:
                self.backend.submit_put(f"{request_id}@{obj.layer_id}@{obj.start}", obj)
        logger.debug("Stored %d layers for %s", self.config.num_layers, request_id)
        yield


class LayerwisePrefillDriver:
    """Runs prefill layer by layer, overlapping KV offload with compute."""

    def __init__(
        self,
        engine: LayerwiseCacheEngine,
        layers: Sequence[LayerFn],
        kv_caches: List[torch.Tensor],
    ):
        self.engine = engine
        self.layers = layers
        self.kv_caches = kv_caches

    @torch.inference_mode()
    def run(self, request_id: str, hidden: torch.Tensor, slot_offset: int) -> torch.Tensor:
        num_tokens = hidden.shape[0]
        slots = torch.arange(slot_offset, slot_offset + num_tokens, device=hidden.device)
        store_gen = self.engine.store_layer(
            request_id, num_tokens, self.kv_caches, slot_offset
        )
        for layer_id, layer in enumerate(self.layers):
            hidden, key, value = layer(hidden)
            kv = self.kv_caches[layer_id]
            kv[0].index_copy_(0, slots, key)
            kv[1].index_copy_(0, slots, value)
            next(store_gen)
        next(store_gen)
        return hidden
