"""Pinned host pool for spilled KV blocks."""
import torch

from .batch_copy import memcpy_batch_async


class HostKVSpillTier:
    def __init__(self, config, memory_buffer, block_bytes):
        self.config = config
        self.memory_buffer = memory_buffer  # the context's device KV buffer, blocks contiguous
        self.block_bytes = block_bytes
        self.device_id = memory_buffer.device.index or 0
        self.host_pool = torch.empty(config.host_blocks * block_bytes, dtype=torch.uint8, pin_memory=True)
        self.free_host_slots = list(range(config.host_blocks))
        self.spill_stream = torch.cuda.Stream()
        self.restore_stream = torch.cuda.Stream()
        self.spilled = {}  # prefix hash -> host slot

    def _device_ptr(self, block_id):
        return self.memory_buffer.data_ptr() + block_id * self.block_bytes

    def _host_ptr(self, slot):
        return self.host_pool.data_ptr() + slot * self.block_bytes

    def spill(self, evicted, step_done):
        """evicted: (prefix hash, device block id) pairs the allocator is about to reuse."""
        slots = [self.free_host_slots.pop() for _ in evicted]
        self.spill_stream.wait_event(step_done)
        memcpy_batch_async(
            [self._host_ptr(s) for s in slots],
            [self._device_ptr(b) for _, b in evicted],
            self.block_bytes,
            self.spill_stream,
            self.config.spill_src_access_order,
            to_host=True,
            device_id=self.device_id,
            overlap=self.config.overlap_with_compute,
        )
        for (prefix_hash, _), slot in zip(evicted, slots):
            self.spilled[prefix_hash] = slot
        # the evicted blocks are handed to new requests: their writes must follow the copy
        torch.cuda.current_stream().wait_stream(self.spill_stream)
