"""Paged-memory GPU connector in the shape of LMCache's VLLMPagedMemGPUConnectorV2 with a GPU
intermediate buffer: a CUDA kernel gathers the tokens of a chunk from every layer's paged KV
(addressed through a device table of layer pointers and the slot mapping) into the staging
buffer, then the staging buffer is copied to the chunk's pinned memory object on the store
stream, so that the next chunk's gather can overlap with this copy."""

from typing import Dict, List

import torch

from lmc_store.memory_management import MemoryFormat, TensorMemoryObj

if torch.cuda.is_available():
    import lmcache.c_ops as lmc_ops


class VLLMPagedMemGPUConnector:
    def __init__(self, hidden_dim_size: int, num_layers: int, chunk_size: int, dtype: torch.dtype, device: str):
        self.hidden_dim_size = hidden_dim_size
        self.num_layers = num_layers
        self.kv_cache_pointers = torch.empty(num_layers, dtype=torch.int64, device="cpu")
        self.kv_cache_pointers_on_gpu: Dict[int, torch.Tensor] = {}
        self.page_buffer_size = 0
        self.gpu_buffer = torch.empty(self.get_shape(chunk_size), dtype=dtype, device=device)
        self.store_stream = torch.cuda.Stream(device=device)
        self.store_done = torch.cuda.Event()

    def get_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([2, self.num_layers, num_tokens, self.hidden_dim_size])

    def _initialize_pointers(self, kv_caches: List[torch.Tensor]) -> torch.Tensor:
        self.kv_cache_pointers.numpy()[:] = [t.data_ptr() for t in kv_caches]
        idx = kv_caches[0].device.index
        if idx not in self.kv_cache_pointers_on_gpu:
            self.kv_cache_pointers_on_gpu[idx] = torch.empty(self.num_layers, dtype=torch.int64, device=kv_caches[0].device)
        self.kv_cache_pointers_on_gpu[idx].copy_(self.kv_cache_pointers)
        # kv_caches[0]: [2, num_pages, page_size, num_heads, head_size]
        self.page_buffer_size = kv_caches[0].shape[1] * kv_caches[0].shape[2]
        return self.kv_cache_pointers_on_gpu[idx]

    def from_gpu(self, memory_obj: TensorMemoryObj, start: int, end: int, **kwargs) -> None:
        if "kvcaches" not in kwargs or "slot_mapping" not in kwargs:
            raise ValueError("'kvcaches' and 'slot_mapping' should be provided in kwargs.")
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        slot_mapping: torch.Tensor = kwargs["slot_mapping"]
        kv_cache_pointers = self._initialize_pointers(kvcaches)

        tmp_gpu_buffer = self.gpu_buffer[:, :, : end - start, :]
        # the staging buffer may still be read by the previous chunk's copy
        torch.cuda.current_stream().wait_stream(self.store_stream)
        # gather on the compute stream, behind the attention kernels that wrote the pages
        lmc_ops.multi_layer_kv_transfer(
            tmp_gpu_buffer,
            kv_cache_pointers,
            slot_mapping[start:end],
            kvcaches[0].device,
            self.page_buffer_size,
            True,
            False,
        )
        with torch.cuda.stream(self.store_stream):
            # expect: KVG001
            memory_obj.tensor.copy_(tmp_gpu_buffer, non_blocking=True)
            self.store_done.record()
        memory_obj.metadata.fmt = MemoryFormat.KV_2LTD

    def wait_for_store(self) -> None:
        self.store_done.synchronize()
