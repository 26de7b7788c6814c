"""Copy-engine transfers with cuMemcpyBatchAsync (cuda-python driver bindings)."""

from typing import Dict, List

import numpy as np
import torch
from cuda.bindings import driver

from kv_dma.spec import TransferDirection

_ORDER = driver.CUmemcpySrcAccessOrder
_LOC = driver.CUmemLocationType


def _location(kind, index: int) -> driver.CUmemLocation:
    loc = driver.CUmemLocation()
    loc.type = kind
    loc.id = index
    return loc


def attributes_for(direction: TransferDirection, device_index: int) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    gpu = _location(_LOC.CU_MEM_LOCATION_TYPE_DEVICE, device_index)
    host = _location(_LOC.CU_MEM_LOCATION_TYPE_HOST, 0)
    if direction.reads_host:
        # nothing writes a pinned host block while it is being loaded: let the driver read
        # it as early as it likes
        attrs.srcAccessOrder = _ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
        attrs.srcLocHint, attrs.dstLocHint = host, gpu
    else:
        attrs.srcAccessOrder = _ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
        attrs.srcLocHint, attrs.dstLocHint = gpu, host
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


class BlockTables:
    """Per-layer base addresses and block sizes of both tiers."""

    def __init__(self, gpu: Dict[str, torch.Tensor], cpu: Dict[str, torch.Tensor]):
        self.gpu_bases = np.array([t.data_ptr() for t in gpu.values()], dtype=np.uint64)
        self.cpu_bases = np.array([t.data_ptr() for t in cpu.values()], dtype=np.uint64)
        self.block_bytes = np.array([t.stride(0) * t.element_size() for t in gpu.values()],
                                    dtype=np.uint64)

    def addresses(self, direction: TransferDirection, src_blocks: List[int], dst_blocks: List[int]):
        if direction.src_medium == "gpu":
            src_bases, dst_bases = self.gpu_bases, self.cpu_bases
        else:
            src_bases, dst_bases = self.cpu_bases, self.gpu_bases
        bpb = self.block_bytes[:, None]
        srcs = src_bases[:, None] + np.asarray(src_blocks, dtype=np.uint64)[None, :] * bpb
        dsts = dst_bases[:, None] + np.asarray(dst_blocks, dtype=np.uint64)[None, :] * bpb
        sizes = np.repeat(self.block_bytes, len(src_blocks))
        return dsts.ravel().tolist(), srcs.ravel().tolist(), sizes.tolist()


def batch_copy(dsts: List[int], srcs: List[int], sizes: List[int],
               attrs: driver.CUmemcpyAttributes, stream: torch.cuda.Stream) -> None:
    # expect: KVG002
    err, *_ = driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), [attrs], [0], 1,
                                        stream.cuda_stream)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync: {err}")
