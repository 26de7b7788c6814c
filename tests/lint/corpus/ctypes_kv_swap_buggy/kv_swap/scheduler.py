import collections
import logging
import threading

import torch

from . import cudart
from .config import SwapConfig
from .prefetch import PrefetchWorker
from .swap_space import SwapSpace

logger = logging.getLogger(__name__)


class SwapScheduler:

    def __init__(self, config: SwapConfig):
        self.space = SwapSpace(config)
        self._compute = torch.cuda.current_stream(
            config.device_index).cuda_stream
        self._lock = threading.Lock()
        self._free_gpu = collections.deque(range(config.num_gpu_blocks))
        self._free_cpu = collections.deque(range(config.num_cpu_blocks))
        self.block_tables: dict[int, list[int]] = {}
        self._swapped: dict[int, list[int]] = {}
        self._prefetched: dict[int, tuple[list[int], object]] = {}
        self._draining: list[tuple[list[int], object]] = []
        self._prefetcher = PrefetchWorker(self._prefetch_one,
                                          config.prefetch_depth)

    def _fence(self):
        event = cudart.event_create()
        cudart.event_record(event, self._compute)
        return event

    def step_begin(self) -> None:
        for gpu_ids, done in self._draining:
            cudart.stream_wait_event(self._compute, done)
            cudart.event_destroy(done)
            with self._lock:
                self._free_gpu.extend(gpu_ids)
        self._draining.clear()

    def preempt(self, request_id: int) -> None:
        gpu_ids = self.block_tables.pop(request_id)
        with self._lock:
            cpu_ids = [self._free_cpu.popleft() for _ in gpu_ids]
        done = self.space.swap_out(list(zip(gpu_ids, cpu_ids)), self._fence())
        with self._lock:
            self._swapped[request_id] = cpu_ids
        self._draining.append((gpu_ids, done))

    def free_request(self, request_id: int) -> None:
        gpu_ids = self.block_tables.pop(request_id)
        with self._lock:
            self._free_gpu.extend(gpu_ids)

    def hint_resume(self, request_id: int) -> None:
        self._prefetcher.submit(request_id)

    def resume(self, request_id: int) -> list[int]:
        self._prefetcher.drain()
        with self._lock:
            staged = self._prefetched.pop(request_id, None)
        if staged is None:
            gpu_ids, done = self._swap_in(request_id)
        else:
            gpu_ids, done = staged
        cudart.stream_wait_event(self._compute, done)
        cudart.event_destroy(done)
        self.block_tables[request_id] = gpu_ids
        return gpu_ids

    def _prefetch_one(self, request_id: int) -> None:
        with self._lock:
            if request_id not in self._swapped:
                return
        staged = self._swap_in(request_id, fence_compute=False)
        with self._lock:
            self._prefetched[request_id] = staged
        logger.debug("prefetched request %d", request_id)

    def _swap_in(self, request_id: int, fence_compute: bool = True):
        with self._lock:
            cpu_ids = self._swapped.pop(request_id)
            gpu_ids = [self._free_gpu.popleft() for _ in cpu_ids]
        fence = self._fence() if fence_compute else None
        done = self.space.swap_in(list(zip(cpu_ids, gpu_ids)), fence)
        with self._lock:
            self._free_cpu.extend(cpu_ids)
        return gpu_ids, done
