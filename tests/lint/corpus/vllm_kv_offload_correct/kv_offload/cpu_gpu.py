# SPDX-License-Identifier: Apache-2.0
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from vllm.logger import init_logger

from .block_utils import coalesce_block_runs, expand_block_ids
from .mediums import BlockIDsLoadStoreSpec
from .worker import OffloadingHandler, TransferResult, TransferSpec

logger = init_logger(__name__)

CopyBlocksFn = Callable[[Sequence[torch.Tensor], Sequence[torch.Tensor], np.ndarray], None]


def swap_blocks(
    src_tensors: Sequence[torch.Tensor],
    dst_tensors: Sequence[torch.Tensor],
    block_runs: np.ndarray,
) -> None:
    """Copy block runs between per-layer KV tensors (block dim first),
    on the current stream."""
    for src, dst in zip(src_tensors, dst_tensors):
        for src_start, dst_start, num_blocks in block_runs:
            dst[dst_start : dst_start + num_blocks].copy_(
                src[src_start : src_start + num_blocks], non_blocking=True
            )


@dataclass
class Transfer:
    job_id: int
    stream: torch.cuda.Stream
    start_event: torch.cuda.Event
    end_event: torch.cuda.Event
    num_bytes: int


class SingleDirectionOffloadingHandler(OffloadingHandler):
    def __init__(
        self,
        src_tensors: list[torch.Tensor],
        dst_tensors: list[torch.Tensor],
        src_block_size_factor: int,
        dst_block_size_factor: int,
        gpu_to_cpu: bool,
        copy_fn: CopyBlocksFn = swap_blocks,
    ):
        assert len(src_tensors) == len(dst_tensors)
        self.src_tensors = src_tensors
        self.dst_tensors = dst_tensors
        self.src_block_size_factor = src_block_size_factor
        self.dst_block_size_factor = dst_block_size_factor
        self.gpu_to_cpu = gpu_to_cpu
        self._copy_fn = copy_fn
        self._bytes_per_block = sum(t[0].numel() * t.element_size() for t in src_tensors)

        self._transfers: deque[Transfer] = deque()
        self._stream_pool: list[torch.cuda.Stream] = []
        self._event_pool: list[torch.cuda.Event] = []

    def _get_event(self) -> torch.cuda.Event:
        if self._event_pool:
            return self._event_pool.pop()
        return torch.cuda.Event(enable_timing=True)

    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        src_spec, dst_spec = spec
        assert isinstance(src_spec, BlockIDsLoadStoreSpec)
        assert isinstance(dst_spec, BlockIDsLoadStoreSpec)

        src_blocks = expand_block_ids(src_spec.block_ids, self.src_block_size_factor)
        dst_blocks = expand_block_ids(dst_spec.block_ids, self.dst_block_size_factor)
        if src_blocks.size != dst_blocks.size:
            logger.error("Block count mismatch for job %d: %s -> %s", job_id, src_spec, dst_spec)
            return False
        block_runs = coalesce_block_runs(src_blocks, dst_blocks)

        stream = self._stream_pool.pop() if self._stream_pool else torch.cuda.Stream()
        start_event = self._get_event()
        end_event = self._get_event()

        # Stores read blocks the model just wrote; loads overwrite blocks
        # the model may still be reading. Either way, order after compute.
        stream.wait_stream(torch.cuda.current_stream())
        if self._transfers:
            # keep completion in submission order so get_finished can popleft
            stream.wait_event(self._transfers[-1].end_event)

        with torch.cuda.stream(stream):
            start_event.record(stream)
            self._copy_fn(self.src_tensors, self.dst_tensors, block_runs)
            end_event.record(stream)

        self._transfers.append(
            Transfer(job_id, stream, start_event, end_event, src_blocks.size * self._bytes_per_block)
        )
        return True

    def get_finished(self) -> list[TransferResult]:
        results: list[TransferResult] = []
        while self._transfers and self._transfers[0].end_event.query():
            transfer = self._transfers.popleft()
            elapsed = transfer.start_event.elapsed_time(transfer.end_event) * 1e-3
            results.append(TransferResult(transfer.job_id, True, transfer.num_bytes, elapsed))
            self._stream_pool.append(transfer.stream)
            self._event_pool.extend((transfer.start_event, transfer.end_event))
        return results

    def wait(self, job_ids: set[int]) -> None:
        for transfer in self._transfers:
            if transfer.job_id in job_ids:
                transfer.end_event.synchronize()


class CpuGpuOffloadingHandlers:
    def __init__(
        self,
        gpu_block_size: int,
        cpu_block_size: int,
        num_cpu_blocks: int,
        gpu_caches: dict[str, torch.Tensor],
        pin_memory: bool = True,
    ):
        assert cpu_block_size % gpu_block_size == 0
        factor = cpu_block_size // gpu_block_size

        gpu_tensors: list[torch.Tensor] = []
        cpu_tensors: list[torch.Tensor] = []
        for layer_name, gpu_cache in gpu_caches.items():
            # FlashAttention layout is (2, num_blocks, ...): split K and V so
            # every tensor we copy has the block dimension first.
            views = gpu_cache.unbind(0) if gpu_cache.shape[0] == 2 else (gpu_cache,)
            for view in views:
                cpu_shape = (num_cpu_blocks * factor,) + tuple(view.shape[1:])
                logger.debug("Allocating CPU tensor of shape %s for %s", cpu_shape, layer_name)
                gpu_tensors.append(view)
                cpu_tensors.append(
                    torch.zeros(cpu_shape, dtype=view.dtype, device="cpu", pin_memory=pin_memory)
                )

        self.gpu_to_cpu_handler = SingleDirectionOffloadingHandler(
            gpu_tensors, cpu_tensors, 1, factor, gpu_to_cpu=True
        )
        self.cpu_to_gpu_handler = SingleDirectionOffloadingHandler(
            cpu_tensors, gpu_tensors, factor, 1, gpu_to_cpu=False
        )
