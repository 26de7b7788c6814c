"""A paged-KV connector that moves a chunk's pages with one cudaMemcpyBatchAsync per chunk
instead of a gather kernel. Pages are addressed from the layer tensors' base pointers and the
block ids of the chunk; a memory object holds ``[num_layers, 2, blocks, block_size, heads, dim]``."""

from functools import cached_property
from typing import List

import torch
from cuda.bindings import runtime as cudart

from lmc_bm.cudart_utils import check, location
from lmc_bm.memory_management import MemoryObj


class PagedBatchCopyConnector:
    def __init__(self, device_ordinal: int):
        self.device_ordinal = device_ordinal
        self.kv_caches: List[torch.Tensor] = []
        self.block_bytes = 0
        self.num_blocks = 0
        self.load_stream = torch.cuda.Stream()
        self.store_stream = torch.cuda.Stream()
        self.store_done = torch.cuda.Event()

    def register_kv_caches(self, kv_caches: List[torch.Tensor]) -> None:
        # vLLM layout per layer: [2, num_blocks, block_size, num_heads, head_size]
        self.kv_caches = kv_caches
        self.num_blocks = kv_caches[0].shape[1]
        self.block_bytes = kv_caches[0][0, 0].numel() * kv_caches[0].element_size()

    @cached_property
    def _batch_attrs(self) -> list:
        attrs = cudart.cudaMemcpyAttributes()
        # the sources are pinned host pages that nothing writes while a copy of them is queued
        attrs.srcAccessOrder = cudart.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderAny
        attrs.srcLocHint = location(cudart.cudaMemLocationType.cudaMemLocationTypeHost)
        attrs.dstLocHint = location(cudart.cudaMemLocationType.cudaMemLocationTypeDevice, self.device_ordinal)
        attrs.flags = cudart.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute
        return [attrs]

    def _page_pointers(self, block_ids: List[int]) -> List[int]:
        ptrs = []
        for kv in self.kv_caches:
            base = kv.data_ptr()
            for kv_idx in range(2):
                for block_id in block_ids:
                    ptrs.append(base + (kv_idx * self.num_blocks + block_id) * self.block_bytes)
        return ptrs

    def _object_pointers(self, memory_obj: MemoryObj, num_pages: int) -> List[int]:
        return [memory_obj.data_ptr + i * self.block_bytes for i in range(num_pages)]

    def to_gpu(self, memory_obj: MemoryObj, block_ids: List[int]) -> None:
        dsts = self._page_pointers(block_ids)
        srcs = self._object_pointers(memory_obj, len(dsts))
        sizes = [self.block_bytes] * len(dsts)
        current = torch.cuda.current_stream()
        # the pages being filled may still be read by kernels of an earlier step
        self.load_stream.wait_stream(current)
        check(cudart.cudaMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), self._batch_attrs, [0], 1,
                                          self.load_stream.cuda_stream))
        current.wait_stream(self.load_stream)

    def batched_from_gpu(self, memory_objs: List[MemoryObj], chunk_block_ids: List[List[int]]) -> None:
        self.store_stream.wait_stream(torch.cuda.current_stream())
        for memory_obj, block_ids in zip(memory_objs, chunk_block_ids):
            srcs = self._page_pointers(block_ids)
            dsts = self._object_pointers(memory_obj, len(srcs))
            sizes = [self.block_bytes] * len(srcs)
            # expect: KVG002
            check(cudart.cudaMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), self._batch_attrs, [0], 1,
                                              self.store_stream.cuda_stream))
        self.store_done.record(self.store_stream)
