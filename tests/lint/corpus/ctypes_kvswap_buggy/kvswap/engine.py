from __future__ import annotations

import dataclasses
from typing import Mapping

import torch

from . import _cudart
from ._cudart import cudaMemcpyKind


@dataclasses.dataclass(frozen=True)
class CacheLayout:
    num_layers: int
    num_gpu_blocks: int
    num_cpu_blocks: int
    block_size: int
    num_kv_heads: int
    head_size: int
    dtype: torch.dtype = torch.float16

    @property
    def block_shape(self) -> tuple[int, ...]:
        # K and V of one block are contiguous so a block moves in one memcpy.
        return (2, self.block_size, self.num_kv_heads, self.head_size)

    @property
    def block_bytes(self) -> int:
        n = 2 * self.block_size * self.num_kv_heads * self.head_size
        return n * torch.finfo(self.dtype).bits // 8


class BlockCopyEngine:
    """Moves whole KV blocks between the GPU cache and the pinned CPU cache.

    All copies go on a private non-blocking stream; ``record_done`` gives the
    caller an event to make the compute stream wait on.
    """

    def __init__(self, layout: CacheLayout, gpu_cache: list[torch.Tensor], cpu_cache: list[torch.Tensor]):
        assert all(t.is_cuda for t in gpu_cache) and all(t.is_pinned() for t in cpu_cache)
        self.layout = layout
        self._gpu_ptrs = [t.data_ptr() for t in gpu_cache]
        self._cpu_ptrs = [t.data_ptr() for t in cpu_cache]
        self._stream = _cudart.stream_create(non_blocking=True)
        self._done = _cudart.event_create()

    def swap_out(self, gpu_to_cpu: Mapping[int, int]) -> None:
        bb = self.layout.block_bytes
        for gpu_base, cpu_base in zip(self._gpu_ptrs, self._cpu_ptrs):
            for src_block, dst_block in gpu_to_cpu.items():
                # expect: KVG001
                _cudart.memcpy_async(
                    cpu_base + dst_block * bb,
                    gpu_base + src_block * bb,
                    bb,
                    cudaMemcpyKind.cudaMemcpyDeviceToHost,
                    self._stream,
                )

    def swap_in(self, cpu_to_gpu: Mapping[int, int]) -> None:
        bb = self.layout.block_bytes
        for gpu_base, cpu_base in zip(self._gpu_ptrs, self._cpu_ptrs):
            for src_block, dst_block in cpu_to_gpu.items():
                # expect: KVG004
                _cudart.memcpy_async(
                    gpu_base + dst_block * bb,
                    cpu_base + src_block * bb,
                    bb,
                    cudaMemcpyKind.cudaMemcpyHostToDevice,
                    self._stream,
                )

    def record_done(self) -> int:
        _cudart.event_record(self._done, self._stream)
        return self._done

    def synchronize(self) -> None:
        _cudart.stream_synchronize(self._stream)
