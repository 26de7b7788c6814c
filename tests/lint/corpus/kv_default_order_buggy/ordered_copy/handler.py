"""A GPU<->CPU transfer handler in the shape of vLLM's ``kv_offload/cpu/gpu_worker.py``: the
requesting thread orders the transfer stream behind its current stream with ``wait_stream``,
issues the batch copy, and records a completion event. A sampled fingerprint of stored blocks
is kept for later verification. Bugs: the store relies on the wrapper's ANY default; and the
fingerprint is read from the pinned buffer right after the asynchronous store is issued, before
its completion event has been waited on."""

import torch

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

    def store(self, job_id, gpu_blocks, cpu_blocks):
        self.stream.wait_stream(torch.cuda.current_stream())
        copy_cache_blocks(self.gpu_cache, gpu_blocks, self.cpu_cache, cpu_blocks, self.stream)
        done = torch.cuda.Event()
        done.record(self.stream)
        self.transfers[job_id] = done
        first = cpu_blocks[0]
        # expect: KVG003
        self.fingerprints[first] = self.cpu_cache[first].flatten()[:16].tolist()

    def load(self, job_id, cpu_blocks, gpu_blocks):
        self.stream.wait_stream(torch.cuda.current_stream())
        copy_cache_blocks(self.cpu_cache, cpu_blocks, self.gpu_cache, gpu_blocks, self.stream)
        done = torch.cuda.Event()
        done.record(self.stream)
        self.transfers[job_id] = done

    def get_finished(self):
        finished = [job_id for job_id, event in self.transfers.items() if event.query()]
        for job_id in finished:
            del self.transfers[job_id]
        return finished
