"""Copy thread serving store (GPU -> pinned) and load (pinned -> GPU) jobs."""

import queue
import threading

import torch

from .driver_copy import batch_copy


class BlockOffloadWorker:
    def __init__(self, gpu_kv, num_cpu_blocks):
        self.gpu_kv = gpu_kv  # [num_gpu_blocks, block_numel] on the device
        self.cpu_kv = torch.empty((num_cpu_blocks, gpu_kv.shape[1]), dtype=gpu_kv.dtype, pin_memory=True)
        self.block_bytes = gpu_kv.shape[1] * gpu_kv.element_size()
        self.stream = torch.cuda.Stream(device=gpu_kv.device)
        self.jobs = queue.Queue()
        self.finished = queue.Queue()
        self.thread = threading.Thread(target=self._run, name="kv-offload", daemon=True)
        self.thread.start()

    def submit_store(self, job_id, gpu_ids, cpu_ids):
        written = torch.cuda.Event()
        written.record()
        self.jobs.put(("store", job_id, gpu_ids, cpu_ids, written))

    def submit_load(self, job_id, cpu_ids, gpu_ids):
        released = torch.cuda.Event()
        released.record()
        self.jobs.put(("load", job_id, cpu_ids, gpu_ids, released))

    def shutdown(self):
        self.jobs.put(None)
        self.thread.join()

    def _run(self):
        while True:
            job = self.jobs.get()
            if job is None:
                break
            kind, job_id, src_ids, dst_ids, ready = job
            if kind == "store":
                if len(src_ids) == 1:
                    with torch.cuda.stream(self.stream):
                        # expect: KVG001
                        self.cpu_kv[dst_ids[0]].copy_(self.gpu_kv[src_ids[0]], non_blocking=True)
                else:
                    self.stream.wait_event(ready)
                    dsts = [self.cpu_kv[i].data_ptr() for i in dst_ids]
                    srcs = [self.gpu_kv[i].data_ptr() for i in src_ids]
                    batch_copy(dsts, srcs, [self.block_bytes] * len(srcs), self.stream.cuda_stream)
            else:
                self.stream.wait_event(ready)
                dsts = [self.gpu_kv[i].data_ptr() for i in dst_ids]
                srcs = [self.cpu_kv[i].data_ptr() for i in src_ids]
                batch_copy(dsts, srcs, [self.block_bytes] * len(srcs), self.stream.cuda_stream)
            done = torch.cuda.Event()
            done.record(self.stream)
            self.finished.put((job_id, done))

    def get_finished(self):
        ready, pending = [], []
        while True:
            try:
                job_id, done = self.finished.get_nowait()
            except queue.Empty:
                break
            (ready if done.query() else pending).append((job_id, done))
        for item in pending:
            self.finished.put(item)
        return [job_id for job_id, _ in ready]
