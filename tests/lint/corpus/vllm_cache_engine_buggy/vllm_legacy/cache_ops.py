"""Block copy helpers for the paged KV cache (mirrors csrc/cache_kernels.cu)."""

from __future__ import annotations

import torch
from cuda import cudart


def _check(err: cudart.cudaError_t) -> None:
    if err != cudart.cudaError_t.cudaSuccess:
        _, msg = cudart.cudaGetErrorString(err)
        raise RuntimeError(f"CUDA error in cache op: {msg}")


def _memcpy_kind(src: torch.Tensor, dst: torch.Tensor) -> cudart.cudaMemcpyKind:
    if src.is_cuda and dst.is_cuda:
        return cudart.cudaMemcpyKind.cudaMemcpyDeviceToDevice
    if src.is_cuda and not dst.is_cuda:
        return cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost
    if not src.is_cuda and dst.is_cuda:
        return cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
    raise ValueError(f"Invalid device combination: {src.device} -> {dst.device}")


def swap_blocks(src: torch.Tensor, dst: torch.Tensor, block_mapping: dict[int, int]) -> None:
    """Copy whole blocks ``src[s] -> dst[d]`` on the current stream."""
    memcpy_type = _memcpy_kind(src, dst)
    stream = torch.cuda.current_stream().cuda_stream
    block_size_in_bytes = src.element_size() * src[0].numel()
    src_ptr = src.data_ptr()
    dst_ptr = dst.data_ptr()
    for src_block, dst_block in block_mapping.items():
        # expect: KVG004
        (err,) = cudart.cudaMemcpyAsync(
            dst_ptr + dst_block * block_size_in_bytes,
            src_ptr + src_block * block_size_in_bytes,
            block_size_in_bytes,
            memcpy_type,
            stream,
        )
        _check(err)


def copy_blocks(
    key_caches: list[torch.Tensor],
    value_caches: list[torch.Tensor],
    block_mapping: dict[int, list[int]],
) -> None:
    src = [s for s, dsts in block_mapping.items() for _ in dsts]
    dst = [d for dsts in block_mapping.values() for d in dsts]
    if not src:
        return
    device = key_caches[0].device
    src_idx = torch.tensor(src, dtype=torch.long, device=device)
    dst_idx = torch.tensor(dst, dtype=torch.long, device=device)
    for cache in (*key_caches, *value_caches):
        cache.index_copy_(0, dst_idx, cache.index_select(0, src_idx))
