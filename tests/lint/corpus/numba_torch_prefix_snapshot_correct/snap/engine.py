"""A paged-KV decode engine whose model runs on its own torch stream."""

from dataclasses import dataclass
from typing import List

import torch

from .snapshot import PrefixSnapshotter
from .store import PrefixStore, prefix_key


@dataclass
class Batch:
    input_ids: torch.Tensor
    positions: torch.Tensor
    block_table: torch.Tensor
    # blocks that became full this step, with their tokens (for the prefix key)
    sealed_blocks: List[int]
    sealed_tokens: List[List[int]]
    sealed_parents: List[str]


class Engine:
    def __init__(self, model, num_layers, num_blocks, block_elems, max_sealed=64):
        self.model = model
        self.compute = torch.cuda.Stream()
        self.kv = torch.zeros(
            (num_layers, num_blocks, block_elems), dtype=torch.float16, device="cuda"
        )
        self.store = PrefixStore()
        self.snapshotter = PrefixSnapshotter(num_layers, block_elems, max_sealed, self.store)

    def step(self, batch: Batch) -> torch.Tensor:
        with torch.cuda.stream(self.compute):
            logits = self.model(batch.input_ids, batch.positions, batch.block_table, self.kv)
            next_ids = logits.argmax(dim=-1)
        if batch.sealed_blocks:
            keys = [prefix_key(t, p) for t, p in zip(batch.sealed_tokens, batch.sealed_parents)]
            self.snapshotter.copy_stream.wait_stream(self.compute)
            self.snapshotter.snapshot(self.kv, batch.sealed_blocks, keys)
        return next_ids
