"""Dynamic-batching request bookkeeping in the shape of Megatron's DynamicInferenceContext: the
per-request lengths and the active/finished counts live on the GPU, and each step they are copied
non-blocking into pinned host buffers held as attributes so the scheduler can read them. Bugs: the
host reads the pinned counts with ``int(...)`` and the lengths with ``.tolist()`` right after the
copies were enqueued, with no wait for them; the prefetch path indexes a numpy view of the pinned
lengths while the next step's copy into it may still be running."""

import torch


class DynamicBatchContext:
    def __init__(self, max_requests):
        self.max_requests = max_requests
        self.request_lengths = torch.zeros(max_requests, dtype=torch.int32, device="cuda")
        self.request_finished = torch.zeros(max_requests, dtype=torch.bool, device="cuda")
        self.counts_gpu = torch.zeros(2, dtype=torch.int32, device="cuda")
        self.counts_pinned = torch.zeros(2, dtype=torch.int32, pin_memory=True)
        self.lengths_pinned = torch.zeros(max_requests, dtype=torch.int32, pin_memory=True)
        self.lengths_view = self.lengths_pinned.numpy()
        self.metadata_ready = torch.cuda.Event()

    def update_requests(self, new_tokens, eos_id, max_length):
        self.request_lengths.add_((new_tokens >= 0).to(torch.int32))
        self.request_finished.logical_or_((new_tokens == eos_id) | (self.request_lengths >= max_length))
        self.counts_gpu[0] = (self.request_lengths > 0).sum()
        self.counts_gpu[1] = self.request_finished.sum()
        self.counts_pinned.copy_(self.counts_gpu, non_blocking=True)
        self.lengths_pinned.copy_(self.request_lengths, non_blocking=True)
        self.metadata_ready.record()

    def active_request_count(self):
        # expect: KVG003
        return int(self.counts_pinned[0])

    def request_lengths_host(self):
        # expect: KVG003
        return self.lengths_pinned.tolist()

    def length_of(self, slot):
        self.metadata_ready.synchronize()
        self.lengths_pinned.copy_(self.request_lengths, non_blocking=True)
        self.metadata_ready.record()
        # expect: KVG003
        return int(self.lengths_view[slot])
