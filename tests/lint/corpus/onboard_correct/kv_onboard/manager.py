import logging
import queue
from collections import deque
from typing import Deque, Dict, List

import torch

from .config import OnboardConfig
from .device import current_stream, device_module
from .loader import HostToDeviceLoader, OnboardJob

logger = logging.getLogger(__name__)


class OnboardingManager:
    """Moves host-resident prefixes back into GPU blocks ahead of their forward."""

    def __init__(self, config: OnboardConfig, device: torch.device):
        self.config = config
        self.gpu_blocks = torch.empty((config.num_gpu_blocks, config.block_numel),
                                      dtype=config.dtype, device=device)
        self.host_blocks = torch.empty((config.num_host_blocks, config.block_numel),
                                       dtype=config.dtype, pin_memory=True)
        self._dm = device_module()
        self._free: Deque[int] = deque(range(config.num_gpu_blocks))
        self._jobs: "queue.Queue[OnboardJob]" = queue.Queue(config.loader_queue_depth)
        self._pending: Dict[int, OnboardJob] = {}
        self._loader = HostToDeviceLoader(self.gpu_blocks, self.host_blocks, self._jobs)
        self._loader.start()

    def release(self, block_ids: List[int]) -> None:
        self._free.extend(block_ids)

    def _submit(self, request, ready) -> OnboardJob:
        blocks = [self._free.popleft() for _ in request.host_slots]
        job = OnboardJob(request.py_request_id, list(request.host_slots), blocks,
                         ready=ready)
        self._pending[request.py_request_id] = job
        self._jobs.put(job)
        return job

    def _compute_marker(self):
        marker = self._dm.Event()
        marker.record(current_stream())
        return marker

    def onboard(self, requests) -> None:
        if not requests:
            return
        marker = self._compute_marker()
        for request in requests:
            self._submit(request, marker)

    def prefetch(self, waiting) -> None:
        candidates = [r for r in waiting[: self.config.prefetch_lookahead]
                      if r.host_slots and r.py_request_id not in self._pending]
        if not candidates:
            return
        marker = self._compute_marker()
        for request in candidates:
            self._submit(request, marker)

    def wait_ready(self, request) -> List[int]:
        job = self._pending.pop(request.py_request_id)
        job.done.wait()
        if job.finished is not None:
            current_stream().wait_event(job.finished)
        return job.block_ids
