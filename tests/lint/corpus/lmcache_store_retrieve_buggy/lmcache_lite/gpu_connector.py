from __future__ import annotations

from typing import List

import torch

import lmcache.c_ops as lmc_ops

from .batched_copy import batched_memcpy_async
from .memory_management import MemoryObj


class VLLMPagedMemGPUConnectorV2:
    """Moves KV between vLLM's paged GPU cache and LMCache memory objects.

    Store: gather the paged KV of a chunk into a contiguous GPU staging buffer,
    then copy the staging buffer into the (pinned) memory object.
    Retrieve: copy the memory object into a GPU staging buffer, then scatter it
    into the paged KV cache.
    """

    def __init__(self, hidden_dim_size: int, num_layers: int, chunk_size: int,
                 dtype: torch.dtype = torch.bfloat16, device: str = "cuda") -> None:
        self.hidden_dim_size = hidden_dim_size
        self.num_layers = num_layers
        self.chunk_size = chunk_size
        shape = (2, num_layers, chunk_size, hidden_dim_size)
        self.store_buffer = torch.empty(shape, dtype=dtype, device=device)
        self.load_buffer = torch.empty(shape, dtype=dtype, device=device)
        self.store_stream = torch.cuda.Stream(device=device)
        self.load_stream = torch.cuda.Stream(device=device)
        self.kv_cache_pointers = torch.empty(num_layers, dtype=torch.int64, device="cpu")
        self._kv_cache_pointers_gpu = torch.empty(num_layers, dtype=torch.int64, device=device)
        self.page_buffer_size = 0

    def _initialize_pointers(self, kv_caches: List[torch.Tensor]) -> torch.Tensor:
        # vLLM allocates the paged cache once, so the pointer table only needs
        # to be built on the first call.
        if self.page_buffer_size == 0:
            self.kv_cache_pointers.numpy()[:] = [t.data_ptr() for t in kv_caches]
            self._kv_cache_pointers_gpu.copy_(self.kv_cache_pointers)
            self.page_buffer_size = kv_caches[0].shape[1] * kv_caches[0].shape[2]
        return self._kv_cache_pointers_gpu

    def from_gpu(self, memory_obj: MemoryObj, start: int, end: int, **kwargs) -> None:
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        slot_mapping: torch.Tensor = kwargs["slot_mapping"]
        num_tokens = end - start
        staging = self.store_buffer[:, :, :num_tokens]
        pointers = self._initialize_pointers(kvcaches)

        # the paged cache was filled by the forward on the current stream
        self.store_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.store_stream):
            lmc_ops.multi_layer_kv_transfer(
                staging, pointers, slot_mapping[start:end], kvcaches[0].device, self.page_buffer_size, True
            )
            batched_memcpy_async(
                dsts=[memory_obj.data_ptr],
                srcs=[staging.data_ptr()],
                sizes=[staging.numel() * staging.element_size()],
                cuda_stream=self.store_stream.cuda_stream,
            )
        self.store_stream.synchronize()

    def to_gpu(self, memory_obj: MemoryObj, start: int, end: int, **kwargs) -> None:
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        slot_mapping: torch.Tensor = kwargs["slot_mapping"]
        num_tokens = end - start
        staging = self.load_buffer[:, :, :num_tokens]
        pointers = self._initialize_pointers(kvcaches)

        with torch.cuda.stream(self.load_stream):
            # expect: KVG004
            staging.copy_(memory_obj.tensor, non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.load_stream)
        lmc_ops.multi_layer_kv_transfer(
            staging, pointers, slot_mapping[start:end], kvcaches[0].device, self.page_buffer_size, False
        )
