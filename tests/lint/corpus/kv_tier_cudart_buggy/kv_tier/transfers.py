from __future__ import annotations

from typing import Sequence

import torch
from cuda.bindings import runtime as cudart

from kv_tier.cudart_utils import D2H, H2D, check


def _block_ptr(t: torch.Tensor, block_id: int) -> int:
    return t.data_ptr() + block_id * t.stride(0) * t.element_size()


def _block_bytes(t: torch.Tensor) -> int:
    return t.stride(0) * t.element_size()


def store_blocks(gpu_layers: Sequence[torch.Tensor], cpu_layers: Sequence[torch.Tensor],
                 gpu_ids: Sequence[int], cpu_ids: Sequence[int], stream) -> int:
    total = 0
    for gpu, cpu in zip(gpu_layers, cpu_layers):
        nbytes = _block_bytes(gpu)
        for g, c in zip(gpu_ids, cpu_ids):
            # expect: KVG001
            check(cudart.cudaMemcpyAsync(_block_ptr(cpu, c), _block_ptr(gpu, g), nbytes, D2H, stream))
            total += nbytes
    return total


def load_blocks(cpu_layers: Sequence[torch.Tensor], gpu_layers: Sequence[torch.Tensor],
                cpu_ids: Sequence[int], gpu_ids: Sequence[int], stream) -> int:
    total = 0
    for cpu, gpu in zip(cpu_layers, gpu_layers):
        nbytes = _block_bytes(gpu)
        for c, g in zip(cpu_ids, gpu_ids):
            # expect: KVG004
            check(cudart.cudaMemcpyAsync(_block_ptr(gpu, g), _block_ptr(cpu, c), nbytes, H2D, stream))
            total += nbytes
    return total
