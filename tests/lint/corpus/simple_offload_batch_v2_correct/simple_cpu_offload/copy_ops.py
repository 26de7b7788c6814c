"""Batched block copies between GPU KV tensors and their pinned CPU mirrors."""

from __future__ import annotations

import numpy as np
from cuda.bindings import driver

from simple_cpu_offload.cuda_utils import check


def _block_pointers(base_ptrs: np.ndarray, block_bytes: np.ndarray, block_ids: np.ndarray) -> np.ndarray:
    # [num_tensors, num_blocks] absolute addresses
    return base_ptrs[:, None] + block_bytes[:, None] * block_ids[None, :]


def _sizes(block_bytes: np.ndarray, num_blocks: int) -> list[int]:
    return np.repeat(block_bytes, num_blocks).tolist()


def store_blocks(
    gpu_base: np.ndarray,
    cpu_base: np.ndarray,
    block_bytes: np.ndarray,
    gpu_blocks: np.ndarray,
    cpu_blocks: np.ndarray,
    attrs: driver.CUmemcpyAttributes,
    stream: driver.CUstream,
) -> None:
    srcs = _block_pointers(gpu_base, block_bytes, gpu_blocks).ravel().tolist()
    dsts = _block_pointers(cpu_base, block_bytes, cpu_blocks).ravel().tolist()
    sizes = _sizes(block_bytes, len(gpu_blocks))
    err, *_ = driver.cuMemcpyBatchAsync(
        [driver.CUdeviceptr(p) for p in dsts],
        [driver.CUdeviceptr(p) for p in srcs],
        sizes, len(sizes), [attrs], [0], 1, stream,
    )
    check((err,))


def load_blocks(
    cpu_base: np.ndarray,
    gpu_base: np.ndarray,
    block_bytes: np.ndarray,
    cpu_blocks: np.ndarray,
    gpu_blocks: np.ndarray,
    attrs: driver.CUmemcpyAttributes,
    stream: driver.CUstream,
) -> None:
    srcs = _block_pointers(cpu_base, block_bytes, cpu_blocks).ravel().tolist()
    dsts = _block_pointers(gpu_base, block_bytes, gpu_blocks).ravel().tolist()
    sizes = _sizes(block_bytes, len(cpu_blocks))
    err, *_ = driver.cuMemcpyBatchAsync(
        [driver.CUdeviceptr(p) for p in dsts],
        [driver.CUdeviceptr(p) for p in srcs],
        sizes, len(sizes), [attrs], [0], 1, stream,
    )
    check((err,))
