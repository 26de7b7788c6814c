import ctypes
import logging
import os
import queue
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Optional

import torch

from . import cudart
from .constants import (CUDA_EVENT_DISABLE_TIMING, CUDA_MEMCPY_DEVICE_TO_HOST, DEFAULT_OFFLOAD_DIR,
                        KV_FILE_SUFFIX, NUM_IO_WORKERS, RELAY_BUFFER_BYTES)
from .file_io import flush_job_to_file

logger = logging.getLogger(__name__)


class RelayBuffer:
    """Page-locked staging area between device memory and the file system."""

    def __init__(self, nbytes: int):
        self.nbytes = nbytes
        self.ptr = cudart.host_alloc(nbytes)

    def view(self, nbytes: int) -> memoryview:
        return memoryview((ctypes.c_ubyte * nbytes).from_address(self.ptr))


@dataclass
class StoreJob:
    path: str
    src: Optional[torch.Tensor]
    nbytes: int
    ready_event: int
    relay: Optional[RelayBuffer] = None
    future: Optional[Future] = None
    flushed: threading.Event = field(default_factory=threading.Event)


class TorchDisk:
    """Stores device tensors to files through pinned relay buffers on worker threads."""

    def __init__(self, path: str = DEFAULT_OFFLOAD_DIR, num_workers: int = NUM_IO_WORKERS):
        self.path = os.path.abspath(os.path.expanduser(path))
        os.makedirs(self.path, exist_ok=True)
        self._executor = ThreadPoolExecutor(max_workers=num_workers, thread_name_prefix="disk-io")
        self._copy_stream = cudart.stream_create()
        self._relays: "queue.Queue[RelayBuffer]" = queue.Queue()
        for _ in range(num_workers):
            self._relays.put(RelayBuffer(RELAY_BUFFER_BYTES))

    def file_for(self, name: str) -> str:
        return os.path.join(self.path, name + KV_FILE_SUFFIX)

    def store_async(self, tensor: torch.Tensor, name: str) -> StoreJob:
        src = tensor.contiguous()
        nbytes = src.numel() * src.element_size()
        if nbytes > RELAY_BUFFER_BYTES:
            raise ValueError(f"{name}: {nbytes} bytes exceeds relay buffer size")
        event = cudart.event_create(CUDA_EVENT_DISABLE_TIMING)
        cudart.event_record(event, torch.cuda.current_stream(src.device).cuda_stream)
        job = StoreJob(path=self.file_for(name), src=src, nbytes=nbytes, ready_event=event)
        job.future = self._executor.submit(self._device_to_relay, job)
        job.future.add_done_callback(partial(flush_job_to_file, self._relays, job))
        return job

    def _device_to_relay(self, job: StoreJob) -> StoreJob:
        job.relay = self._relays.get()
        cudart.stream_wait_event(self._copy_stream, job.ready_event)
        cudart.memcpy_async(job.relay.ptr, job.src.data_ptr(), job.nbytes, CUDA_MEMCPY_DEVICE_TO_HOST,
                            self._copy_stream)
        logger.debug("queued %d bytes for %s", job.nbytes, job.path)
        return job

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
