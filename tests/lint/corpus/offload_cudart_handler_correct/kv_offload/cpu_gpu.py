import ctypes
import logging
from collections import deque
from dataclasses import dataclass

import numpy as np
import torch

from . import cudart
from .block_copy import load_blocks, store_blocks
from .worker import OffloadingHandler, OffloadingWorker, TransferResult, TransferSpec

logger = logging.getLogger(__name__)


@dataclass
class Transfer:
    job_id: int
    stream: torch.cuda.Stream
    end_event: ctypes.c_void_p
    num_bytes: int


class SingleDirectionOffloadingHandler(OffloadingHandler):
    """Transfers of one direction run in submission order, each on a pooled stream."""

    def __init__(self, gpu_tensors: list[torch.Tensor], cpu_tensors: list[torch.Tensor], gpu_to_cpu: bool):
        assert len(gpu_tensors) == len(cpu_tensors) > 0
        self.gpu_tensors = gpu_tensors
        self.cpu_tensors = cpu_tensors
        self.gpu_to_cpu = gpu_to_cpu
        self._compute_event = cudart.event_create()
        self._transfers: deque[Transfer] = deque()
        self._transfer_events: dict[int, ctypes.c_void_p] = {}
        self._stream_pool: list[torch.cuda.Stream] = []
        self._event_pool: list[ctypes.c_void_p] = []

    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        src_spec, dst_spec = spec
        src_to_dst = np.stack([src_spec.block_ids, dst_spec.block_ids], axis=1)
        stream = self._stream_pool.pop() if self._stream_pool else torch.cuda.Stream()
        end_event = self._event_pool.pop() if self._event_pool else cudart.event_create()
        handle = stream.cuda_stream

        cudart.event_record(self._compute_event, torch.cuda.current_stream().cuda_stream)
        cudart.stream_wait_event(handle, self._compute_event)
        if self._transfers:
            cudart.stream_wait_event(handle, self._transfers[-1].end_event)

        num_bytes = 0
        for gpu_tensor, cpu_tensor in zip(self.gpu_tensors, self.cpu_tensors):
            if self.gpu_to_cpu:
                num_bytes += store_blocks(gpu_tensor, cpu_tensor, src_to_dst, handle)
            else:
                num_bytes += load_blocks(cpu_tensor, gpu_tensor, src_to_dst, handle)
        cudart.event_record(end_event, handle)

        self._transfer_events[job_id] = end_event
        self._transfers.append(Transfer(job_id, stream, end_event, num_bytes))
        return True

    def get_finished(self) -> list[TransferResult]:
        results: list[TransferResult] = []
        while self._transfers and cudart.event_query(self._transfers[0].end_event):
            transfer = self._transfers.popleft()
            results.append(TransferResult(transfer.job_id, True, transfer.num_bytes))
            self._stream_pool.append(transfer.stream)
            self._event_pool.append(transfer.end_event)
            del self._transfer_events[transfer.job_id]
        return results

    def wait(self, job_ids: set[int]) -> None:
        for job_id in job_ids:
            event = self._transfer_events.get(job_id)
            if event is not None:
                cudart.event_synchronize(event)


class CpuGpuOffloadingHandlers:
    def __init__(self, gpu_caches: dict[str, torch.Tensor], num_cpu_blocks: int):
        gpu_tensors: list[torch.Tensor] = []
        cpu_tensors: list[torch.Tensor] = []
        for layer_name, gpu_cache in gpu_caches.items():
            gpu_tensor = gpu_cache.view(torch.int8).view(gpu_cache.shape[0], -1)
            logger.debug("Allocating CPU blocks for %s", layer_name)
            cpu_tensors.append(
                torch.zeros((num_cpu_blocks, gpu_tensor.shape[1]), dtype=torch.int8, pin_memory=True)
            )
            gpu_tensors.append(gpu_tensor)
        self.gpu_to_cpu_handler = SingleDirectionOffloadingHandler(gpu_tensors, cpu_tensors, gpu_to_cpu=True)
        self.cpu_to_gpu_handler = SingleDirectionOffloadingHandler(gpu_tensors, cpu_tensors, gpu_to_cpu=False)

    def register(self, worker: OffloadingWorker) -> None:
        worker.register_handler("GPU", "CPU", self.gpu_to_cpu_handler)
        worker.register_handler("CPU", "GPU", self.cpu_to_gpu_handler)
