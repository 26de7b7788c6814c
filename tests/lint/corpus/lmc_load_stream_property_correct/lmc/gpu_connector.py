"""GPU connector between vLLM's paged KV cache (per layer [2, num_blocks, block_size, heads,
head_size]) and LMCache memory objects ([num_layers, 2, num_tokens, heads, head_size]).

Loads run on a dedicated load stream so that retrieval overlaps with the scheduler's other
work; every request's load gets a completion event, kept by request id, which the attention
layers wait on before they read the request's blocks."""

import abc
from typing import Dict, List

import torch

from lmc.memory_management import MemoryObj


class GPUConnectorInterface(metaclass=abc.ABCMeta):
    @abc.abstractmethod
    def to_gpu(self, memory_obj: MemoryObj, start: int, end: int, **kwargs) -> None: ...

    @abc.abstractmethod
    def from_gpu(self, memory_obj: MemoryObj, start: int, end: int, **kwargs) -> None: ...


class VLLMPagedMemGPUConnectorV2(GPUConnectorInterface):
    def __init__(self, num_layers: int, block_size: int):
        self.num_layers = num_layers
        self.block_size = block_size
        self.kvcaches: List[torch.Tensor] = []
        self._streams: Dict[str, torch.cuda.Stream] = {}
        self._load_done: Dict[str, torch.cuda.Event] = {}

    def _stream(self, role: str) -> torch.cuda.Stream:
        if role not in self._streams:
            self._streams[role] = torch.cuda.Stream()
        return self._streams[role]

    @property
    def load_stream(self) -> torch.cuda.Stream:
        return self._stream("load")

    @property
    def store_stream(self) -> torch.cuda.Stream:
        return self._stream("store")

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        self.kvcaches = list(kv_caches.values())

    def _blocks(self, start: int, end: int, block_ids: List[int]):
        bs = self.block_size
        for i, block_id in enumerate(block_ids[start // bs : (end + bs - 1) // bs]):
            yield block_id, slice(i * bs, (i + 1) * bs)

    def to_gpu(self, memory_obj: MemoryObj, start: int, end: int, **kwargs) -> None:
        req_id, block_ids = kwargs["req_id"], kwargs["block_ids"]
        src = memory_obj.tensor
        # the blocks were just handed to this request; kernels queued on the compute stream
        # may still be reading them for the request that owned them before
        self.load_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.load_stream):
            for layer_id, kv_layer in enumerate(self.kvcaches):
                for block_id, tokens in self._blocks(start, end, block_ids):
                    kv_layer[:, block_id].copy_(src[layer_id, :, tokens], non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        self._load_done[req_id] = done

    def wait_for_load(self, req_id: str) -> None:
        done = self._load_done.pop(req_id, None)
        if done is not None:
            torch.cuda.current_stream().wait_event(done)

    def from_gpu(self, memory_obj: MemoryObj, start: int, end: int, **kwargs) -> None:
        block_ids = kwargs["block_ids"]
        dst = memory_obj.tensor
        self.store_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.store_stream):
            for layer_id, kv_layer in enumerate(self.kvcaches):
                for block_id, tokens in self._blocks(start, end, block_ids):
                    dst[layer_id, :, tokens].copy_(kv_layer[:, block_id], non_blocking=True)
        self.store_stream.synchronize()
