"""Prefill side: gather blocks into a staging slot and push it to the peer."""

from concurrent.futures import ThreadPoolExecutor

import torch


class KVSender:
    def __init__(self, kv_caches, pool, max_inflight=4):
        self.kv_caches = kv_caches  # per layer: [num_blocks, block_size, heads, dim]
        self.pool = pool
        self.copy_stream = torch.cuda.Stream()
        self.executor = ThreadPoolExecutor(max_workers=max_inflight, thread_name_prefix="kv-send")

    def send(self, req_id, block_ids, peer):
        slot = self.pool.acquire()
        self.copy_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.copy_stream):
            n = 0
            for layer in self.kv_caches:
                for block_id in block_ids:
                    slot.buffer[n].copy_(layer[block_id], non_blocking=True)
                    n += 1
            slot.ready.record()
        return self.executor.submit(self._push, req_id, slot, n, peer)

    def _push(self, req_id, slot, n, peer):
        try:
            slot.ready.synchronize()
            header = f"{req_id}:{n}\n".encode()
            peer.sendall(header + slot.buffer[:n].numpy().tobytes())
        finally:
            self.pool.release(slot)
