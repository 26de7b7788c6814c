from __future__ import annotations

import torch

from . import cudart


def _contiguous_runs(block_ids: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for block in block_ids:
        if runs and runs[-1][0] + runs[-1][1] == block:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((block, 1))
    return runs


class KVCacheFormatter:
    """Packs the KV blocks of one request into a flat byte buffer."""

    def __init__(self, kv_pool: torch.Tensor):
        self._pool = kv_pool
        self._block_bytes = kv_pool[0].numel() * kv_pool.element_size()

    def nbytes(self, num_blocks: int) -> int:
        return num_blocks * self._block_bytes

    def copy_blocks_to_host(self, block_ids: list[int],
                            staging: torch.Tensor, stream: int) -> None:
        base = self._pool.data_ptr()
        offset = 0
        for first, count in _contiguous_runs(block_ids):
            nbytes = count * self._block_bytes
            # expect: KVG001
            status = cudart.lib().cudaMemcpyAsync(
                staging.data_ptr() + offset, base + first * self._block_bytes,
                nbytes, cudart.cudaMemcpyDeviceToHost, stream)
            cudart.check(status, "cudaMemcpyAsync")
            offset += nbytes

    def copy_host_to_device(self, staging: torch.Tensor,
                            recv: torch.Tensor, stream: int) -> None:
        status = cudart.lib().cudaMemcpyAsync(recv.data_ptr(),
                                              staging.data_ptr(),
                                              staging.numel(),
                                              cudart.cudaMemcpyHostToDevice,
                                              stream)
        cudart.check(status, "cudaMemcpyAsync")

    def scatter_received(self, recv: torch.Tensor,
                         block_ids: list[int]) -> None:
        blocks = recv.view(self._pool.dtype).view(len(block_ids),
                                                  *self._pool.shape[1:])
        index = torch.tensor(block_ids, device=self._pool.device)
        self._pool.index_copy_(0, index, blocks)
