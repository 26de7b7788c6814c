from __future__ import annotations

from typing import Optional

import torch

from lmcache.v1 import kv_ops
from lmcache.v1.memory_management import MemoryFormat, MemoryObj


class VLLMPagedMemGPUConnectorV2:
    """Moves KV chunks between vLLM's paged GPU caches and pinned MemoryObjs
    through a contiguous temporary GPU buffer."""

    def __init__(self, hidden_dim_size: int, num_layers: int, *, chunk_size: int,
                 dtype: torch.dtype, device: torch.device) -> None:
        self.hidden_dim_size = hidden_dim_size
        self.num_layers = num_layers
        self.dtype = dtype
        self.device = device
        self.kvcaches: Optional[list[torch.Tensor]] = None
        self._store_stream: Optional[torch.cuda.Stream] = None
        self._load_stream: Optional[torch.cuda.Stream] = None
        self.tmp_gpu_buffer = torch.empty(
            (2, num_layers, chunk_size, hidden_dim_size), dtype=dtype, device=device)

    @property
    def store_stream(self) -> torch.cuda.Stream:
        if self._store_stream is None:
            self._store_stream = torch.cuda.Stream(device=self.device)
        return self._store_stream

    @property
    def load_stream(self) -> torch.cuda.Stream:
        if self._load_stream is None:
            self._load_stream = torch.cuda.Stream(device=self.device)
        return self._load_stream

    def get_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([2, self.num_layers, num_tokens, self.hidden_dim_size])

    def _initialize_kvcaches(self, kwargs: dict) -> None:
        if self.kvcaches is None:
            if "kvcaches" not in kwargs:
                raise ValueError("'kvcaches' should be provided in kwargs.")
            self.kvcaches = list(kwargs["kvcaches"])

    def from_gpu(self, memory_obj: MemoryObj, start: int, end: int, **kwargs) -> None:
        """Store: paged GPU KV for tokens [start, end) -> memory_obj."""
        assert memory_obj.tensor is not None
        self._initialize_kvcaches(kwargs)
        slot_mapping: torch.Tensor = kwargs["slot_mapping"]
        tmp = self.tmp_gpu_buffer[:, :, :end - start]

        kv_ops.gather_paged_kv(tmp, self.kvcaches, slot_mapping[start:end])
        with torch.cuda.stream(self.store_stream):
            # expect: KVG001
            memory_obj.tensor.copy_(tmp, non_blocking=True)
        # The MemoryObj is handed to the storage backends right after this.
        self.store_stream.synchronize()
        memory_obj.metadata.fmt = MemoryFormat.KV_2LTD

    def to_gpu(self, memory_obj: MemoryObj, start: int, end: int, **kwargs) -> None:
        """Retrieve: memory_obj -> paged GPU KV for tokens [start, end)."""
        assert memory_obj.tensor is not None
        assert memory_obj.metadata.fmt == MemoryFormat.KV_2LTD
        self._initialize_kvcaches(kwargs)
        slot_mapping: torch.Tensor = kwargs["slot_mapping"]
        tmp = self.tmp_gpu_buffer[:, :, :end - start]

        with torch.cuda.stream(self.load_stream):
            # expect: KVG004
            tmp.copy_(memory_obj.tensor, non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.load_stream)
        kv_ops.scatter_paged_kv(tmp, self.kvcaches, slot_mapping[start:end])

    def batched_from_gpu(self, memory_objs: list[MemoryObj], starts: list[int],
                         ends: list[int], **kwargs) -> None:
        for memory_obj, start, end in zip(memory_objs, starts, ends, strict=True):
            self.from_gpu(memory_obj, start, end, **kwargs)

    def batched_to_gpu(self, memory_objs: list[MemoryObj], starts: list[int],
                       ends: list[int], **kwargs) -> None:
        for memory_obj, start, end in zip(memory_objs, starts, ends, strict=True):
            self.to_gpu(memory_obj, start, end, **kwargs)
        # Callers drop their MemoryObj references as soon as this returns.
        self.load_stream.synchronize()
