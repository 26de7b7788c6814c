# SPDX-License-Identifier: Apache-2.0
from collections import deque
from dataclasses import dataclass

import torch

from kv_offload.copy_ops import swap_blocks
from kv_offload.spec import BlockIDsLoadStoreSpec, TransferResult, TransferSpec


@dataclass
class Transfer:
    job_id: int
    stream: torch.cuda.Stream
    end_event: torch.Event
    num_bytes: int


class SingleDirectionOffloadingHandler:
    """Moves blocks in one direction; jobs complete in submission order."""

    def __init__(self, gpu_tensors: list[torch.Tensor], cpu_tensors: list[torch.Tensor],
                 gpu_to_cpu: bool):
        assert len(gpu_tensors) == len(cpu_tensors) > 0
        self.gpu_to_cpu = gpu_to_cpu
        self.src_tensors = gpu_tensors if gpu_to_cpu else cpu_tensors
        self.dst_tensors = cpu_tensors if gpu_to_cpu else gpu_tensors
        self.transfer_type = ("GPU", "CPU") if gpu_to_cpu else ("CPU", "GPU")
        self._transfers: deque[Transfer] = deque()
        self._transfer_events: dict[int, torch.Event] = {}
        self._stream_pool: list[torch.cuda.Stream] = []
        self._event_pool: list[torch.Event] = []

    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        src_spec, dst_spec = spec
        assert isinstance(src_spec, BlockIDsLoadStoreSpec)
        assert isinstance(dst_spec, BlockIDsLoadStoreSpec)

        stream = self._stream_pool.pop() if self._stream_pool else torch.cuda.Stream()
        end_event = self._event_pool.pop() if self._event_pool else torch.Event()

        if self.gpu_to_cpu:
            stream.wait_stream(torch.accelerator.current_stream())
        if self._transfers:
            stream.wait_event(self._transfers[-1].end_event)
        with torch.cuda.stream(stream):
            num_bytes = swap_blocks(
                self.src_tensors, self.dst_tensors, src_spec.block_ids, dst_spec.block_ids
            )
            end_event.record(stream)

        self._transfer_events[job_id] = end_event
        self._transfers.append(Transfer(job_id, stream, end_event, num_bytes))
        return True

    def get_finished(self) -> list[TransferResult]:
        results: list[TransferResult] = []
        while self._transfers and self._transfers[0].end_event.query():
            transfer = self._transfers.popleft()
            results.append(TransferResult(transfer.job_id, True, transfer.num_bytes, self.transfer_type))
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
        gpu_tensors, cpu_tensors = [], []
        for layer_name, gpu_tensor in gpu_caches.items():
            cpu_shape = (num_cpu_blocks,) + tuple(gpu_tensor.shape[1:])
            gpu_tensors.append(gpu_tensor)
            cpu_tensors.append(
                torch.zeros(cpu_shape, dtype=gpu_tensor.dtype, device="cpu", pin_memory=True)
            )
        self.gpu_to_cpu_handler = SingleDirectionOffloadingHandler(
            gpu_tensors, cpu_tensors, gpu_to_cpu=True
        )
        self.cpu_to_gpu_handler = SingleDirectionOffloadingHandler(
            gpu_tensors, cpu_tensors, gpu_to_cpu=False
        )
