from __future__ import annotations

import numpy as np
import torch

from .mediums import CPULoadStoreSpec, GPULoadStoreSpec, TransferResult, TransferSpec
from .worker import OffloadingHandler


def expand_block_ids(block_ids: np.ndarray, factor: int) -> np.ndarray:
    """Map CPU blocks (factor * GPU block size) to GPU-sized sub-blocks."""
    base = block_ids.reshape(-1, 1) * factor
    return (base + np.arange(factor)).reshape(-1)


class CpuGpuOffloadingHandler(OffloadingHandler):
    def __init__(self, gpu_block_size: int, cpu_block_size: int,
                 num_cpu_blocks: int, gpu_caches: dict[str, torch.Tensor]) -> None:
        assert cpu_block_size % gpu_block_size == 0
        self.block_size_factor = cpu_block_size // gpu_block_size

        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.transfer_events: dict[int, torch.cuda.Event] = {}
        self.events_pool: list[torch.cuda.Event] = []

        self.gpu_tensors: list[torch.Tensor] = []
        self.cpu_tensors: list[torch.Tensor] = []
        num_cpu_kernel_blocks = num_cpu_blocks * self.block_size_factor
        for gpu_tensor in gpu_caches.values():
            cpu_shape = (num_cpu_kernel_blocks, *gpu_tensor.shape[1:])
            self.gpu_tensors.append(gpu_tensor)
            self.cpu_tensors.append(torch.zeros(
                cpu_shape, dtype=gpu_tensor.dtype, device="cpu", pin_memory=True))

    def _store_blocks(self, src_ids: np.ndarray, dst_ids: np.ndarray) -> None:
        for gpu_tensor, cpu_tensor in zip(self.gpu_tensors, self.cpu_tensors):
            for src, dst in zip(src_ids.tolist(), dst_ids.tolist()):
                cpu_tensor[dst].copy_(gpu_tensor[src], non_blocking=True)

    def _load_blocks(self, src_ids: np.ndarray, dst_ids: np.ndarray) -> None:
        for gpu_tensor, cpu_tensor in zip(self.gpu_tensors, self.cpu_tensors):
            for src, dst in zip(src_ids.tolist(), dst_ids.tolist()):
                gpu_tensor[dst].copy_(cpu_tensor[src], non_blocking=True)

    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        src_spec, dst_spec = spec
        if isinstance(src_spec, CPULoadStoreSpec):
            assert isinstance(dst_spec, GPULoadStoreSpec)
            stream = self.h2d_stream
            src_ids = expand_block_ids(src_spec.block_ids, self.block_size_factor)
            dst_ids = dst_spec.block_ids
            copy_fn = self._load_blocks
        else:
            assert isinstance(src_spec, GPULoadStoreSpec)
            assert isinstance(dst_spec, CPULoadStoreSpec)
            stream = self.d2h_stream
            src_ids = src_spec.block_ids
            dst_ids = expand_block_ids(dst_spec.block_ids, self.block_size_factor)
            copy_fn = self._store_blocks
        assert src_ids.shape == dst_ids.shape

        # The GPU blocks were last touched by kernels on the compute stream:
        # stores must see their final contents and loads must not overwrite
        # them while an earlier step may still be reading.
        stream.wait_stream(torch.cuda.current_stream())
        event = self.events_pool.pop() if self.events_pool else torch.cuda.Event()
        with torch.cuda.stream(stream):
            copy_fn(src_ids, dst_ids)
            event.record(stream)
        self.transfer_events[job_id] = event
        return True

    def get_finished(self) -> list[TransferResult]:
        results: list[TransferResult] = []
        for job_id, event in self.transfer_events.items():
            if event.query():
                results.append((job_id, True))
                self.events_pool.append(event)
        for job_id, _ in results:
            del self.transfer_events[job_id]
        return results
