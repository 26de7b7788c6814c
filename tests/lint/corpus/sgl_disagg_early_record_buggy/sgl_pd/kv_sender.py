"""Prefill-side KV sender for transports without GPU-direct RDMA: a sender thread gathers a
request's KV into a pinned staging buffer on its own stream and hands the bytes to the
transport.

Bug: ``prepare`` records the job's ``kv_ready`` event when the request is admitted, before
the prefill forward that writes its KV is launched. The sender thread's wait on it orders the
gather behind earlier work only, so it can copy KV the forward has not written yet."""

import queue
import threading
from dataclasses import dataclass, field

import torch

from sgl_pd.memory_pool import MHATokenToKVPool


@dataclass
class KVStagingJob:
    bootstrap_room: int
    kv_indices: torch.Tensor
    kv_ready: torch.cuda.Event = field(default_factory=torch.cuda.Event)


class StagingKVSender:
    def __init__(self, kv_pool: MHATokenToKVPool, max_tokens: int, transport):
        self.kv_pool = kv_pool
        self.transport = transport
        shape = (kv_pool.layer_num, max_tokens, kv_pool.head_num, kv_pool.head_dim)
        self.staging_k = torch.empty(shape, dtype=kv_pool.dtype, pin_memory=True)
        self.staging_v = torch.empty(shape, dtype=kv_pool.dtype, pin_memory=True)
        self.copy_stream = torch.cuda.Stream()
        self.jobs: "queue.Queue" = queue.Queue()
        self.pending = {}
        self.thread = threading.Thread(target=self._staging_loop, name="pd-kv-sender", daemon=True)
        self.thread.start()

    def prepare(self, bootstrap_room: int, kv_indices: torch.Tensor) -> None:
        job = KVStagingJob(bootstrap_room, kv_indices)
        job.kv_ready.record()
        self.pending[bootstrap_room] = job

    def commit(self, bootstrap_room: int) -> None:
        self.jobs.put(self.pending.pop(bootstrap_room))

    def _staging_loop(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                return
            n = job.kv_indices.numel()
            with torch.cuda.stream(self.copy_stream):
                self.copy_stream.wait_event(job.kv_ready)
                for layer_id in range(self.kv_pool.layer_num):
                    # expect: KVG001
                    self.staging_k[layer_id, :n].copy_(self.kv_pool.k_buffer[layer_id][job.kv_indices], non_blocking=True)
                    # expect: KVG001
                    self.staging_v[layer_id, :n].copy_(self.kv_pool.v_buffer[layer_id][job.kv_indices], non_blocking=True)
            self.copy_stream.synchronize()
            self.transport.send(job.bootstrap_room, self.staging_k[:, :n], self.staging_v[:, :n])
