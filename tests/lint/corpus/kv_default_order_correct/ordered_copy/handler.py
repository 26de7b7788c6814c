"""A GPU<->CPU transfer handler in the shape of vLLM's ``kv_offload/cpu/gpu_worker.py``: the
requesting thread orders the transfer stream behind its current stream with ``wait_stream``,
issues the batch copy, and records a completion event. Stores pass STREAM source order over
the wrapper's ANY default. A sampled fingerprint of each stored block is read from the pinned
buffer only once the store's completion event has been seen complete."""

import torch
from cuda.bindings import driver as drv

from ordered_copy.batch import copy_cache_blocks


class CpuGpuTransferHandler:
    def __init__(self, gpu_cache, num_cpu_blocks):
        self.gpu_cache = gpu_cache
        self.cpu_cache = torch.empty(
            (num_cpu_blocks,) + tuple(gpu_cache.shape[1:]), dtype=gpu_cache.dtype, device="cpu", pin_memory=True
        )
        self.stream = torch.cuda.Stream()
        self.transfers = {}
        self.fingerprints = {}
        self.sampled = {}

    def store(self, job_id, gpu_blocks, cpu_blocks):
        self.stream.wait_stream(torch.cuda.current_stream())
        copy_cache_blocks(
            self.gpu_cache,
            gpu_blocks,
            self.cpu_cache,
            cpu_blocks,
            self.stream,
            src_access_order=drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
        )
        done = torch.cuda.Event()
        done.record(self.stream)
        self.transfers[job_id] = done
        self.sampled[job_id] = cpu_blocks[0]

    def load(self, job_id, cpu_blocks, gpu_blocks):
        self.stream.wait_stream(torch.cuda.current_stream())
        copy_cache_blocks(self.cpu_cache, cpu_blocks, self.gpu_cache, gpu_blocks, self.stream)
        done = torch.cuda.Event()
        done.record(self.stream)
        self.transfers[job_id] = done

    def get_finished(self):
        finished = []
        for job_id, event in list(self.transfers.items()):
            if not event.query():
                continue
            del self.transfers[job_id]
            finished.append(job_id)
            first = self.sampled.pop(job_id, None)
            if first is not None:
                self.fingerprints[first] = self.cpu_cache[first].flatten()[:16].tolist()
        return finished
