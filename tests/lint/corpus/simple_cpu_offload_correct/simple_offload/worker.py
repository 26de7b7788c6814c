import logging
import queue
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import torch

from simple_offload.copy_backend import batch_memcpy, make_attrs
from simple_offload.cuda_defs import (
    CU_MEM_LOCATION_TYPE_DEVICE,
    CU_MEM_LOCATION_TYPE_HOST,
    CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
)

logger = logging.getLogger(__name__)


@dataclass
class TransferJob:
    job_id: int
    gpu_to_cpu: bool
    src_ptrs: np.ndarray
    dst_ptrs: np.ndarray
    sizes: np.ndarray
    ready_event: torch.cuda.Event
    done_event: torch.cuda.Event = field(default_factory=torch.cuda.Event)
    issued: threading.Event = field(default_factory=threading.Event)


def block_ptrs(tensors: list[torch.Tensor], block_ids: np.ndarray) -> np.ndarray:
    ptrs = [t.data_ptr() + block_ids.astype(np.uint64) * t.stride(0) * t.element_size() for t in tensors]
    return np.concatenate(ptrs).astype(np.uint64)


class SimpleCPUOffloadWorker:
    def __init__(self, gpu_tensors: list[torch.Tensor], cpu_tensors: list[torch.Tensor], device: torch.device):
        self.gpu_tensors = gpu_tensors
        self.cpu_tensors = cpu_tensors
        self.block_bytes = [t.stride(0) * t.element_size() for t in gpu_tensors]
        dev = device.index or 0
        self._device_index = dev
        self._store_attrs = make_attrs(
            CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, CU_MEM_LOCATION_TYPE_DEVICE, CU_MEM_LOCATION_TYPE_HOST, dev
        )
        self._load_attrs = make_attrs(
            CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, CU_MEM_LOCATION_TYPE_HOST, CU_MEM_LOCATION_TYPE_DEVICE, dev
        )
        self._stream = torch.cuda.Stream(device=device)
        self._queue: "queue.Queue[Optional[TransferJob]]" = queue.Queue()
        self._inflight: deque[TransferJob] = deque()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._copy_loop, name="cpu-offload-copy", daemon=True)
        self._thread.start()

    def submit(self, job_id: int, gpu_block_ids: np.ndarray, cpu_block_ids: np.ndarray, gpu_to_cpu: bool) -> None:
        gpu_ptrs = block_ptrs(self.gpu_tensors, gpu_block_ids)
        cpu_ptrs = block_ptrs(self.cpu_tensors, cpu_block_ids)
        sizes = np.repeat(np.asarray(self.block_bytes, dtype=np.uint64), len(gpu_block_ids))
        src, dst = (gpu_ptrs, cpu_ptrs) if gpu_to_cpu else (cpu_ptrs, gpu_ptrs)
        ready_event = torch.cuda.Event()
        ready_event.record()
        job = TransferJob(job_id, gpu_to_cpu, src, dst, sizes, ready_event)
        with self._lock:
            self._inflight.append(job)
        self._queue.put(job)

    def _copy_loop(self) -> None:
        torch.cuda.set_device(self._device_index)
        while True:
            job = self._queue.get()
            if job is None:
                break
            self._stream.wait_event(job.ready_event)
            attrs = self._store_attrs if job.gpu_to_cpu else self._load_attrs
            batch_memcpy(job.dst_ptrs, job.src_ptrs, job.sizes, attrs, self._stream.cuda_stream)
            job.done_event.record(self._stream)
            job.issued.set()

    def get_finished(self) -> list[int]:
        finished = []
        with self._lock:
            while self._inflight and self._inflight[0].issued.is_set():
                if not self._inflight[0].done_event.query():
                    break
                finished.append(self._inflight.popleft().job_id)
        return finished

    def shutdown(self) -> None:
        self._queue.put(None)
        self._thread.join()
        self._stream.synchronize()
