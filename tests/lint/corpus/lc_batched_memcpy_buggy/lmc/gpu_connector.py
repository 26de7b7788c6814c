"""Gathers whole blocks of vLLM's paged KV cache into MemoryObjs with a single
cuMemcpyBatchAsync per store call."""

from typing import List

import torch
from cuda.bindings import driver

from .memory_management import MemoryObj
from .transfer_config import COPY_FLAGS, SRC_ACCESS_ORDER


def _cu_check(result):
    if result[0] != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error {result[0]}")
    return result[1:]


class BatchedPagedGPUConnector:
    def __init__(self, num_layers: int, block_size: int, hidden: int, device_index: int = 0):
        self.num_layers = num_layers
        self.block_size = block_size
        self.hidden = hidden
        self.store_stream = torch.cuda.Stream(device=device_index)
        self._attrs = self._build_attrs(device_index)

    @staticmethod
    def _build_attrs(device_index: int) -> "driver.CUmemcpyAttributes":
        attrs = driver.CUmemcpyAttributes()
        attrs.srcAccessOrder = SRC_ACCESS_ORDER
        attrs.flags = COPY_FLAGS
        src_loc = driver.CUmemLocation()
        src_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        src_loc.id = device_index
        dst_loc = driver.CUmemLocation()
        dst_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
        attrs.srcLocHint = src_loc
        attrs.dstLocHint = dst_loc
        return attrs

    def chunk_shape(self, num_blocks: int) -> torch.Size:
        return torch.Size([2, self.num_layers, num_blocks * self.block_size, self.hidden])

    def batched_from_gpu(
        self, memory_objs: List[MemoryObj], block_tables: List[List[int]], kvcaches: List[torch.Tensor]
    ) -> torch.cuda.Event:
        """kvcaches[layer]: [2, num_blocks, block_size, hidden], contiguous on the GPU."""
        dsts, srcs, sizes = [], [], []
        for obj, blocks in zip(memory_objs, block_tables):
            offset = 0
            for kv_idx in range(2):
                for kv in kvcaches:
                    for block in blocks:
                        src = kv[kv_idx, block]
                        nbytes = src.numel() * src.element_size()
                        srcs.append(src.data_ptr())
                        dsts.append(obj.address + offset)
                        sizes.append(nbytes)
                        offset += nbytes
        self.store_stream.wait_stream(torch.cuda.current_stream())
        _cu_check(
            # expect: KVG002
            driver.cuMemcpyBatchAsync(
                dsts, srcs, sizes, len(sizes), [self._attrs], [0], 1,
                driver.CUstream(self.store_stream.cuda_stream),
            )
        )
        done = torch.cuda.Event()
        done.record(self.store_stream)
        return done
