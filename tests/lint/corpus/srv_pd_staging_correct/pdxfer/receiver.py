"""Decode side: scatter a received staging slot into the local KV cache."""

import asyncio

import torch


class KVReceiver:
    def __init__(self, kv_caches, pool):
        self.kv_caches = kv_caches
        self.pool = pool
        self.load_stream = torch.cuda.Stream()

    async def receive(self, req_id, block_ids, transport):
        slot = self.pool.acquire()
        await transport.read_into(req_id, slot.buffer)
        compute_done = torch.cuda.Event()
        compute_done.record()
        await asyncio.to_thread(self._scatter, slot, block_ids, compute_done)
        return block_ids

    def _scatter(self, slot, block_ids, compute_done):
        try:
            self.load_stream.wait_event(compute_done)
            with torch.cuda.stream(self.load_stream):
                n = 0
                for layer in self.kv_caches:
                    for block_id in block_ids:
                        layer[block_id].copy_(slot.buffer[n], non_blocking=True)
                        n += 1
            self.load_stream.synchronize()
        finally:
            self.pool.release(slot)
