import itertools
import logging
import queue
from typing import Dict, List, Sequence, Tuple

import torch
from cuda.bindings import driver

from kv_offload.constants import COPY_QUEUE_MAXSIZE
from kv_offload.copy_thread import OffloadCopyThread, TransferJob
from kv_offload.cuda_utils import block_pointers, check

logger = logging.getLogger(__name__)


class CpuGpuOffloadingHandler:
    """Worker-side handler: GPU KV blocks -> pinned CPU blocks."""

    def __init__(self, gpu_caches: Dict[str, torch.Tensor], cpu_caches: Dict[str, torch.Tensor], block_bytes: int):
        self.gpu_caches = gpu_caches
        self.cpu_caches = cpu_caches
        self.block_bytes = block_bytes
        self.device_ordinal = next(iter(gpu_caches.values())).device.index
        self._job_ids = itertools.count()
        self.jobs: "queue.Queue[TransferJob]" = queue.Queue(maxsize=COPY_QUEUE_MAXSIZE)
        self.finished: "queue.Queue[int]" = queue.Queue()
        self.copy_thread = OffloadCopyThread(self.jobs, self.finished, self.device_ordinal)
        self.copy_thread.start()

    def transfer_async(self, block_pairs: Sequence[Tuple[int, int]]) -> int:
        src_ptrs: List[int] = []
        dst_ptrs: List[int] = []
        gpu_ids = [g for g, _ in block_pairs]
        cpu_ids = [c for _, c in block_pairs]
        for name, gpu_t in self.gpu_caches.items():
            src_ptrs += block_pointers(gpu_t.data_ptr(), self.block_bytes, gpu_ids)
            dst_ptrs += block_pointers(self.cpu_caches[name].data_ptr(), self.block_bytes, cpu_ids)
        compute_stream = driver.CUstream(torch.cuda.current_stream().cuda_stream)
        ready = check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))
        check(driver.cuEventRecord(ready, compute_stream))
        job_id = next(self._job_ids)
        self.jobs.put(TransferJob(job_id, src_ptrs, dst_ptrs, [self.block_bytes] * len(src_ptrs), ready))
        return job_id

    def get_finished(self) -> List[int]:
        done = []
        while True:
            try:
                done.append(self.finished.get_nowait())
            except queue.Empty:
                return done
