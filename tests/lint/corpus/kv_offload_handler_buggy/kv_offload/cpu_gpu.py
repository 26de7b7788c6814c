from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass

import numpy as np
import torch

from kv_offload import transfer_ops
from kv_offload.mediums import BlockIDsLoadStoreSpec, TransferSpec
from kv_offload.worker import TransferResult

logger = logging.getLogger(__name__)


@dataclass
class Transfer:
    job_id: int
    stream: torch.cuda.Stream
    end_event: torch.cuda.Event
    num_blocks: int


class SingleDirectionOffloadingHandler:
    """Runs transfers of one direction in submission order."""

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
        self.transfer_type = ("GPU", "CPU") if gpu_to_cpu else ("CPU", "GPU")
        self._transfers: deque[Transfer] = deque()
        self._transfer_events: dict[int, torch.cuda.Event] = {}
        self._stream_pool: list[torch.cuda.Stream] = []
        self._event_pool: list[torch.cuda.Event] = []

    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        src_spec, dst_spec = spec
        assert isinstance(src_spec, BlockIDsLoadStoreSpec)
        assert isinstance(dst_spec, BlockIDsLoadStoreSpec)
        src_to_dst = np.stack([src_spec.block_ids, dst_spec.block_ids], axis=1)

        stream = self._stream_pool.pop() if self._stream_pool else torch.cuda.Stream()
        end_event = self._event_pool.pop() if self._event_pool else torch.cuda.Event()

        if self._transfers:
            stream.wait_event(self._transfers[-1].end_event)
        else:
            stream.wait_stream(torch.cuda.current_stream())

        with torch.cuda.stream(stream):
            for gpu_tensor, cpu_tensor in zip(self.gpu_tensors, self.cpu_tensors):
                if self.gpu_to_cpu:
                    transfer_ops.swap_out_blocks(gpu_tensor, cpu_tensor, src_to_dst)
                else:
                    transfer_ops.swap_in_blocks(cpu_tensor, gpu_tensor, src_to_dst)
            end_event.record(stream)

        self._transfer_events[job_id] = end_event
        self._transfers.append(Transfer(job_id, stream, end_event, len(src_to_dst)))
        return True

    def get_finished(self) -> list[TransferResult]:
        results: list[TransferResult] = []
        while self._transfers and self._transfers[0].end_event.query():
            transfer = self._transfers.popleft()
            results.append(
                TransferResult(transfer.job_id, True, transfer.num_blocks, self.transfer_type)
            )
            self._stream_pool.append(transfer.stream)
            self._event_pool.append(transfer.end_event)
            del self._transfer_events[transfer.job_id]
        return results

    def wait(self, job_ids: set[int]) -> None:
        for job_id in job_ids:
            event = self._transfer_events.get(job_id)
            if event is not None:
                event.synchronize()


class CpuGpuOffloadingHandlers:
    def __init__(self, gpu_caches: dict[str, torch.Tensor], num_cpu_blocks: int):
        gpu_tensors: list[torch.Tensor] = []
        cpu_tensors: list[torch.Tensor] = []
        for name, gpu_tensor in gpu_caches.items():
            page_bytes = gpu_tensor[0].numel() * gpu_tensor.element_size()
            gpu_view = gpu_tensor.view(torch.int8).view(-1, page_bytes)
            gpu_tensors.append(gpu_view)
            cpu_tensors.append(
                torch.zeros((num_cpu_blocks, page_bytes), dtype=torch.int8, pin_memory=True)
            )
            logger.debug("Mirrored %s with %d CPU blocks", name, num_cpu_blocks)
        self.gpu_to_cpu_handler = SingleDirectionOffloadingHandler(
            gpu_tensors, cpu_tensors, gpu_to_cpu=True
        )
        self.cpu_to_gpu_handler = SingleDirectionOffloadingHandler(
            gpu_tensors, cpu_tensors, gpu_to_cpu=False
        )
