"""A HiCache-style controller with three side streams: loads of whole pages before the forward
pass, a prefetch of the first layer's pages, and backups after the forward pass. The
scheduler orders its side streams once, at the start of each step, through a *streams helper.
Bugs: (1) the step-start barrier precedes the forward pass, so the backup issued after it is
not ordered behind the kernels that wrote the pages; (2) the prefetch stream is not among the
streams passed to the helper, so the prefetch overwrites pages queued kernels may still
read."""

import torch

from hicache_sync.stream_utils import wait_for_current


class HiCacheController:
    def __init__(self, num_device_pages, num_host_pages, page_numel, dtype=torch.float16):
        self.device_kv = torch.zeros((num_device_pages, page_numel), dtype=dtype, device="cuda")
        self.host_kv = torch.empty((num_host_pages, page_numel), dtype=dtype, pin_memory=True)
        self.write_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()
        self.prefetch_stream = torch.cuda.Stream()

    def begin_step(self):
        wait_for_current(self.write_stream, self.load_stream)

    def load(self, host_pages, device_pages):
        with torch.cuda.stream(self.load_stream):
            for h, d in zip(host_pages, device_pages):
                self.device_kv[d].copy_(self.host_kv[h], non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.load_stream)

    def prefetch(self, host_pages, device_pages):
        with torch.cuda.stream(self.prefetch_stream):
            for h, d in zip(host_pages, device_pages):
                # expect: KVG004
                self.device_kv[d].copy_(self.host_kv[h], non_blocking=True)
        return self.prefetch_stream.record_event()

    def backup(self, host_pages, device_pages):
        with torch.cuda.stream(self.write_stream):
            for h, d in zip(host_pages, device_pages):
                # expect: KVG001
                self.host_kv[h].copy_(self.device_kv[d], non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        return done
