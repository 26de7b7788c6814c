import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import List, Tuple

import torch

from .cpu_pool import PinnedBufferPool

logger = logging.getLogger(__name__)


class OffloadCopyWorker:
    """Issues activation D2H/H2D copies from a background thread on dedicated streams."""

    def __init__(self, device: torch.device, num_workers: int = 1) -> None:
        self.device = device
        self.d2h_stream = torch.cuda.Stream(device=device)
        self.h2d_stream = torch.cuda.Stream(device=device)
        self.pool = PinnedBufferPool()
        self._executor = ThreadPoolExecutor(max_workers=num_workers, thread_name_prefix="act-offload")

    def submit_offload(self, name: str, tensors: List[torch.Tensor], ready: torch.cuda.Event) -> Future:
        return self._executor.submit(self._offload, name, tensors, ready)

    def submit_reload(self, cpu_tensors: List[torch.Tensor], offloaded: torch.cuda.Event) -> Future:
        return self._executor.submit(self._reload, cpu_tensors, offloaded)

    def _offload(
        self, name: str, tensors: List[torch.Tensor], ready: torch.cuda.Event
    ) -> Tuple[List[torch.Tensor], torch.cuda.Event]:
        torch.cuda.set_device(self.device)
        cpu_tensors = []
        with torch.cuda.stream(self.d2h_stream):
            self.d2h_stream.wait_event(ready)
            for tensor in tensors:
                cpu_tensor = self.pool.acquire(tensor.shape, tensor.dtype)
                cpu_tensor.copy_(tensor, non_blocking=True)
                cpu_tensors.append(cpu_tensor)
            done = torch.cuda.Event()
            done.record(self.d2h_stream)
        logger.debug("offloaded group %s (%d tensors)", name, len(tensors))
        return cpu_tensors, done

    def _reload(
        self, cpu_tensors: List[torch.Tensor], offloaded: torch.cuda.Event
    ) -> Tuple[List[torch.Tensor], torch.cuda.Event]:
        torch.cuda.set_device(self.device)
        gpu_tensors = []
        with torch.cuda.stream(self.h2d_stream):
            self.h2d_stream.wait_event(offloaded)
            for cpu_tensor in cpu_tensors:
                gpu_tensor = torch.empty(cpu_tensor.shape, dtype=cpu_tensor.dtype, device=self.device)
                gpu_tensor.copy_(cpu_tensor, non_blocking=True)
                gpu_tensors.append(gpu_tensor)
            done = torch.cuda.Event()
            done.record(self.h2d_stream)
        return gpu_tensors, done

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
