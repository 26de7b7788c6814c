"""Decode loop: blocks of finished sequences are spilled, and only reused once on the host."""
from collections import deque

import torch

from .spiller import KVSpiller


class Engine:
    def __init__(self, model, num_blocks, block_elems, num_host_blocks):
        self.model = model
        self.kv = torch.zeros((num_blocks, block_elems), dtype=torch.float16, device="cuda")
        self.free_blocks = deque(range(num_blocks))
        self.spiller = KVSpiller(self.kv, num_host_blocks)
        self.in_flight = deque()
        self.host_index = {}

    def _reap(self, wait=False):
        while self.in_flight and (wait or self.in_flight[0][0].done()):
            future, seq_ids, blocks = self.in_flight.popleft()
            placed = future.result()
            for seq_id in seq_ids:
                self.host_index[seq_id] = [placed[b] for b in blocks[seq_id]]
            for seq_blocks in blocks.values():
                self.free_blocks.extend(seq_blocks)

    @torch.inference_mode()
    def step(self, batch):
        self._reap()
        logits = self.model(batch.input_ids, batch.positions, batch.block_table, self.kv)
        finished = {s: batch.blocks_of(s) for s in batch.finished_seq_ids()}
        if finished:
            all_blocks = [b for blocks in finished.values() for b in blocks]
            future = self.spiller.spill(all_blocks)
            self.in_flight.append((future, list(finished), finished))
        return logits

    def close(self):
        self._reap(wait=True)
