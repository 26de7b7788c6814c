from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass

import numpy as np
import torch

from kv_offload.copy_ops import expand_block_ids, swap_blocks
from kv_offload.spec import BlockIDsLoadStoreSpec, TransferResult, TransferSpec

logger = logging.getLogger(__name__)


@dataclass
class Transfer:
    job_id: int
    stream: torch.cuda.Stream
    start_event: torch.Event
    end_event: torch.Event
    num_bytes: int


class SingleDirectionOffloadingHandler:
    """Handles transfers in a single direction (GPU->CPU or CPU->GPU).

    Transfers complete in submission order: each job's stream waits for the
    end event of the job submitted before it.
    """

    def __init__(
        self,
        gpu_tensors: list[torch.Tensor],
        cpu_tensors: list[torch.Tensor],
        block_size_factor: int,
        gpu_to_cpu: bool,
    ):
        assert len(gpu_tensors) == len(cpu_tensors) > 0
        self.gpu_to_cpu = gpu_to_cpu
        self.src_tensors = gpu_tensors if gpu_to_cpu else cpu_tensors
        self.dst_tensors = cpu_tensors if gpu_to_cpu else gpu_tensors
        self.block_size_factor = block_size_factor
        self.transfer_type = ("GPU", "CPU") if gpu_to_cpu else ("CPU", "GPU")
        self._transfer_events: dict[int, torch.Event] = {}
        self._transfers: deque[Transfer] = deque()
        self._stream_pool: list[torch.cuda.Stream] = []
        self._event_pool: list[torch.Event] = []

    def _get_event(self) -> torch.Event:
        return self._event_pool.pop() if self._event_pool else torch.Event(enable_timing=True)

    def _src_dst_ids(self, src_spec, dst_spec) -> tuple[np.ndarray, np.ndarray]:
        if self.gpu_to_cpu:
            return src_spec.block_ids, expand_block_ids(dst_spec.block_ids, self.block_size_factor)
        return expand_block_ids(src_spec.block_ids, self.block_size_factor), dst_spec.block_ids

    def transfer_async(self, job_id: int, transfer_spec: TransferSpec) -> bool:
        src_spec, dst_spec = transfer_spec
        assert isinstance(src_spec, BlockIDsLoadStoreSpec)
        assert isinstance(dst_spec, BlockIDsLoadStoreSpec)
        src_ids, dst_ids = self._src_dst_ids(src_spec, dst_spec)

        stream = self._stream_pool.pop() if self._stream_pool else torch.cuda.Stream()
        start_event = self._get_event()
        end_event = self._get_event()

        if self.gpu_to_cpu:
            # offloaded blocks are produced by the forward pass
            stream.wait_stream(torch.cuda.current_stream())
        if self._transfers:
            stream.wait_event(self._transfers[-1].end_event)

        with torch.cuda.stream(stream):
            start_event.record(stream)
            num_bytes = swap_blocks(self.src_tensors, self.dst_tensors, src_ids, dst_ids)
            end_event.record(stream)

        self._transfer_events[job_id] = end_event
        self._transfers.append(Transfer(job_id, stream, start_event, end_event, num_bytes))
        return True

    def get_finished(self) -> list[TransferResult]:
        results: list[TransferResult] = []
        while self._transfers and self._transfers[0].end_event.query():
            transfer = self._transfers.popleft()
            elapsed = transfer.start_event.elapsed_time(transfer.end_event) * 1e-3
            results.append(
                TransferResult(transfer.job_id, True, transfer.num_bytes, elapsed, self.transfer_type)
            )
            self._stream_pool.append(transfer.stream)
            self._event_pool.extend((transfer.end_event, transfer.start_event))
            del self._transfer_events[transfer.job_id]
        return results

    def wait(self, job_ids: set[int]) -> None:
        for job_id in job_ids:
            event = self._transfer_events.get(job_id)
            if event is not None:
                event.synchronize()
