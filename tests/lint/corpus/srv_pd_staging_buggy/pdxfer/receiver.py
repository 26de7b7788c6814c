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
        await asyncio.to_thread(self._scatter, slot, block_ids)
        return block_ids

    def _scatter(self, slot, block_ids):
        try:
            with torch.cuda.stream(self.load_stream):
                n = 0
                for layer in self.kv_caches:
                    for block_id in block_ids:
                        # expect: KVG004
                        layer[block_id].copy_(slot.buffer[n], non_blocking=True)
                        n += 1
            self.load_stream.synchronize()
        finally:
            self.pool.release(slot)
