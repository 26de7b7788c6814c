# SPDX-License-Identifier: Apache-2.0
from collections import deque
from dataclasses import dataclass

import torch

from vllm.logger import init_logger

from kv_offload.copy_ops import swap_in_blocks, swap_out_blocks
from kv_offload.spec import TransferResult, TransferSpec

logger = init_logger(__name__)


@dataclass
class Transfer:
    job_id: int
    stream: torch.cuda.Stream
    start_event: torch.Event
    end_event: torch.Event
    num_bytes: int


class SingleDirectionOffloadingHandler:
    """Runs transfers of one direction in submission order.

    Each transfer gets its own stream from a small pool; a transfer's stream
    starts only after the previous transfer's end event.
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
        self.transfer_type = ("GPU", "CPU") if gpu_to_cpu else ("CPU", "GPU")
        self._transfers: deque[Transfer] = deque()
        self._stream_pool: list[torch.cuda.Stream] = []
        self._event_pool: list[torch.Event] = []

    def _get_event(self) -> torch.Event:
        return self._event_pool.pop() if self._event_pool else torch.Event(enable_timing=True)

    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        src_spec, dst_spec = spec
        stream = self._stream_pool.pop() if self._stream_pool else torch.cuda.Stream()
        start_event = self._get_event()
        end_event = self._get_event()

        stream.wait_stream(torch.cuda.current_stream())
        if self._transfers:
            stream.wait_event(self._transfers[-1].end_event)

        with torch.cuda.stream(stream):
            start_event.record(stream)
            if self.gpu_to_cpu:
                num_bytes = swap_out_blocks(
                    self.gpu_tensors, self.cpu_tensors, src_spec.block_ids, dst_spec.block_ids
                )
            else:
                num_bytes = swap_in_blocks(
                    self.cpu_tensors, self.gpu_tensors, src_spec.block_ids, dst_spec.block_ids
                )
            end_event.record(stream)

        self._transfers.append(Transfer(job_id, stream, start_event, end_event, num_bytes))
        return True

    def get_finished(self) -> list[TransferResult]:
        results: list[TransferResult] = []
        while self._transfers and self._transfers[0].end_event.query():
            transfer = self._transfers.popleft()
            elapsed = transfer.start_event.elapsed_time(transfer.end_event) * 1e-3
            results.append(
                TransferResult(
                    transfer.job_id, True, transfer.num_bytes, elapsed, self.transfer_type
                )
            )
            self._stream_pool.append(transfer.stream)
            self._event_pool.extend((transfer.start_event, transfer.end_event))
        return results


class CpuGpuOffloadingHandlers:
    def __init__(self, gpu_caches: dict[str, torch.Tensor], num_cpu_blocks: int):
        gpu_tensors: list[torch.Tensor] = []
        cpu_tensors: list[torch.Tensor] = []
        for name, gpu_cache in gpu_caches.items():
            gpu_tensor = gpu_cache.view(torch.int8).view(gpu_cache.shape[0], -1)
            cpu_tensor = torch.zeros(
                (num_cpu_blocks, gpu_tensor.shape[1]),
                dtype=torch.int8,
                device="cpu",
                pin_memory=True,
            )
            logger.debug("Allocated CPU offload tensor for %s: %s", name, cpu_tensor.shape)
            gpu_tensors.append(gpu_tensor)
            cpu_tensors.append(cpu_tensor)

        self.gpu_to_cpu_handler = SingleDirectionOffloadingHandler(
            gpu_tensors, cpu_tensors, gpu_to_cpu=True
        )
        self.cpu_to_gpu_handler = SingleDirectionOffloadingHandler(
            gpu_tensors, cpu_tensors, gpu_to_cpu=False
        )
