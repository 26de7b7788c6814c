"""Block transfers between the GPU KV cache and a pinned CPU mirror, one batch copy per job.

``transfer_async`` runs on the model runner's thread: it resolves block ids to addresses,
records an event on the runner's stream and queues the job; the transfer thread makes its stream
wait on that event before the batch copy, and reports completion through a second event."""

import queue
import threading
from typing import Dict, List, NamedTuple, Sequence, Tuple

import torch

from kv_offload.config import CPUOffloadConfig, TransferDirection
from kv_offload.cuda_batch import make_attributes, memcpy_batch_async


class TransferJob(NamedTuple):
    job_id: int
    direction: TransferDirection
    src_ptrs: List[int]
    dst_ptrs: List[int]
    sizes: List[int]
    ready: torch.cuda.Event


def block_addresses(tensors: Sequence[torch.Tensor], block_ids: Sequence[int]) -> List[int]:
    addrs = []
    for tensor in tensors:
        base = tensor.data_ptr()
        stride = tensor.stride(0) * tensor.element_size()
        addrs.extend(base + int(b) * stride for b in block_ids)
    return addrs


class CpuGpuTransferHandler:
    def __init__(self, gpu_caches: List[torch.Tensor], config: CPUOffloadConfig):
        self.gpu_caches = gpu_caches
        self.cpu_caches = [
            torch.zeros((config.num_cpu_blocks, t.shape[1]), dtype=t.dtype, pin_memory=True) for t in gpu_caches
        ]
        self._attrs = {
            direction: make_attributes(policy.src_access_order, policy.prefer_overlap)
            for direction, policy in config.policies.items()
        }
        self._stream = torch.cuda.Stream()
        self._jobs: "queue.Queue" = queue.Queue()
        self._done: Dict[int, torch.cuda.Event] = {}
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._transfer_loop, name="kv-offload-xfer", daemon=True)
        self._thread.start()

    def transfer_async(self, job_id: int, direction: TransferDirection, gpu_blocks, cpu_blocks) -> None:
        gpu_ptrs = block_addresses(self.gpu_caches, gpu_blocks)
        cpu_ptrs = block_addresses(self.cpu_caches, cpu_blocks)
        sizes = [t.shape[1] * t.element_size() for t in self.gpu_caches for _ in gpu_blocks]
        if direction == TransferDirection.GPU_TO_CPU:
            src_ptrs, dst_ptrs = gpu_ptrs, cpu_ptrs
        else:
            src_ptrs, dst_ptrs = cpu_ptrs, gpu_ptrs
        ready = torch.cuda.Event()
        ready.record()
        self._jobs.put(TransferJob(job_id, direction, src_ptrs, dst_ptrs, sizes, ready))

    def _transfer_loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            self._stream.wait_event(job.ready)
            memcpy_batch_async(job.dst_ptrs, job.src_ptrs, job.sizes, self._attrs[job.direction], self._stream)
            done = torch.cuda.Event()
            done.record(self._stream)
            with self._lock:
                self._done[job.job_id] = done

    def get_finished(self) -> List[Tuple[int, bool]]:
        with self._lock:
            finished = [job_id for job_id, ev in self._done.items() if ev.query()]
            for job_id in finished:
                del self._done[job_id]
        return [(job_id, True) for job_id in finished]

    def shutdown(self) -> None:
        self._jobs.put(None)
        self._thread.join()
