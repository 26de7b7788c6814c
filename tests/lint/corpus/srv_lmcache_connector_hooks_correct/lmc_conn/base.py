"""A GPU connector base in the shape of LMCache's GPUConnectorInterface: the base class owns the
store and load streams and a pinned staging buffer; batched_from_gpu calls an ordering hook
that subclasses override, then gathers KV blocks to the host on the store stream. The default
hook makes the store stream wait on the caller's current stream; overrides order it their own
way."""

import torch


class GPUConnectorBase:
    def __init__(self, num_blocks, num_slots, block_numel, dtype=torch.float16):
        self.kv_cache = torch.zeros((num_blocks, block_numel), dtype=dtype, device="cuda")
        self.staging = torch.empty((num_slots, block_numel), dtype=dtype, pin_memory=True)
        self.store_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()

    def _order_after_compute(self):
        self.store_stream.wait_stream(torch.cuda.current_stream())

    def batched_from_gpu(self, slots, block_ids):
        self._order_after_compute()
        with torch.cuda.stream(self.store_stream):
            for slot, block in zip(slots, block_ids):
                self.staging[slot].copy_(self.kv_cache[block], non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        done.synchronize()
        return [self.staging[slot] for slot in slots]

    def batched_to_gpu(self, slots, block_ids):
        self.load_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.load_stream):
            for slot, block in zip(slots, block_ids):
                self.kv_cache[block].copy_(self.staging[slot], non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.load_stream)
