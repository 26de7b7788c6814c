from typing import Sequence

import torch
from cuda.bindings import driver, runtime

from .constants import BLOCK_TABLE_SRC_ACCESS_ORDER, REQUEST_META_SRC_ACCESS_ORDER
from .cuda_utils import check_driver, check_runtime, driver_d2h_attributes, runtime_d2h_attributes


def snapshot_block_tables(dsts: Sequence[torch.Tensor], srcs: Sequence[torch.Tensor], stream_handle: int) -> None:
    """Batch device-to-host copy of the block table rows via the driver API."""
    dst_ptrs = [driver.CUdeviceptr(t.data_ptr()) for t in dsts]
    src_ptrs = [driver.CUdeviceptr(t.data_ptr()) for t in srcs]
    sizes = [t.numel() * t.element_size() for t in srcs]
    attrs = [driver_d2h_attributes(BLOCK_TABLE_SRC_ACCESS_ORDER, srcs[0].device.index)]
    stream = driver.CUstream(stream_handle)
    # expect: KVG002
    check_driver(driver.cuMemcpyBatchAsync(dst_ptrs, src_ptrs, sizes, len(sizes), attrs, [0], 1, stream))


def snapshot_request_metadata(dsts: Sequence[torch.Tensor], srcs: Sequence[torch.Tensor], stream_handle: int) -> None:
    """Batch device-to-host copy of per-request counters via the runtime API."""
    dst_ptrs = [t.data_ptr() for t in dsts]
    src_ptrs = [t.data_ptr() for t in srcs]
    sizes = [t.numel() * t.element_size() for t in srcs]
    attrs = [runtime_d2h_attributes(REQUEST_META_SRC_ACCESS_ORDER, srcs[0].device.index)]
    stream = runtime.cudaStream_t(stream_handle)
    # expect: KVG002
    check_runtime(runtime.cudaMemcpyBatchAsync(dst_ptrs, src_ptrs, sizes, len(sizes), attrs, [0], 1, stream))
