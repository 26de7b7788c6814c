# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
import logging
from collections import deque
from dataclasses import dataclass

import numpy as np
import torch

from .block_copy import coalesce_runs, gather_blocks_to_host, scatter_blocks_to_device
from .mediums import BlockIDsLoadStoreSpec, TransferResult, TransferSpec

logger = logging.getLogger(__name__)


@dataclass
class Transfer:
    job_id: int
    stream: torch.Stream
    start_event: torch.Event
    end_event: torch.Event
    num_bytes: int


class SingleDirectionOffloadingHandler:
    """Runs transfers in one direction (GPU->CPU or CPU->GPU).

    Transfers complete in submission order: every transfer gets a stream from
    a small pool and is chained behind the end event of the one before it.
    """

    def __init__(
        self,
        gpu_tensors: list[torch.Tensor],
        cpu_tensors: list[torch.Tensor],
        gpu_to_cpu: bool,
    ):
        assert len(gpu_tensors) == len(cpu_tensors) > 0
        self.gpu_tensors = gpu_tensors
        self.cpu_tensors = cpu_tensors
        self.gpu_to_cpu = gpu_to_cpu
        self.device = gpu_tensors[0].device
        self.block_bytes = sum(t.shape[1] for t in gpu_tensors)
        self.transfer_type = ("GPU", "CPU") if gpu_to_cpu else ("CPU", "GPU")

        self._transfers: deque[Transfer] = deque()
        self._transfer_events: dict[int, torch.Event] = {}
        self._stream_pool: list[torch.Stream] = []
        self._event_pool: list[torch.Event] = []

    def _get_stream(self) -> torch.Stream:
        return self._stream_pool.pop() if self._stream_pool else torch.Stream(self.device)

    def _get_event(self) -> torch.Event:
        return self._event_pool.pop() if self._event_pool else torch.Event(enable_timing=True)

    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        src_spec, dst_spec = spec
        assert isinstance(src_spec, BlockIDsLoadStoreSpec)
        assert isinstance(dst_spec, BlockIDsLoadStoreSpec)
        src_to_dst = np.stack([src_spec.block_ids, dst_spec.block_ids], axis=1)
        runs = coalesce_runs(src_to_dst)

        compute_stream = torch.accelerator.current_stream(self.device)
        stream = self._get_stream()
        start_event = self._get_event()
        end_event = self._get_event()

        if self._transfers:
            stream.wait_event(self._transfers[-1].end_event)
        else:
            stream.wait_stream(compute_stream)

        with stream:
            start_event.record(stream)
            for gpu_tensor, cpu_tensor in zip(self.gpu_tensors, self.cpu_tensors):
                if self.gpu_to_cpu:
                    gather_blocks_to_host(gpu_tensor, cpu_tensor, runs)
                else:
                    scatter_blocks_to_device(cpu_tensor, gpu_tensor, runs)
            end_event.record(stream)

        self._transfer_events[job_id] = end_event
        self._transfers.append(
            Transfer(job_id, stream, start_event, end_event, len(src_to_dst) * self.block_bytes)
        )
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
            self._event_pool.extend((transfer.start_event, transfer.end_event))
            del self._transfer_events[transfer.job_id]
        return results

    def wait(self, job_ids: set[int]) -> None:
        for job_id in job_ids:
            event = self._transfer_events.get(job_id)
            if event is not None:
                event.synchronize()
