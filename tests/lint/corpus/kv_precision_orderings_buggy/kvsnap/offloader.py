"""KV block offload between the device cache and a pinned host cache."""

import torch

from .base import BaseTransfer
from .writer import SnapshotWriter


class KVOffloader(BaseTransfer):
    def __init__(self, num_layers, num_blocks, num_host_blocks, block_shape, dtype=torch.float16,
                 snapshot_path=None):
        super().__init__()
        self.kv_cache = [
            torch.zeros((num_blocks, *block_shape), dtype=dtype, device=self.device) for _ in range(num_layers)
        ]
        self.host_cache = [
            torch.zeros((num_host_blocks, *block_shape), dtype=dtype, pin_memory=True) for _ in range(num_layers)
        ]
        self.num_prepared = 0
        self.writer = SnapshotWriter(snapshot_path) if snapshot_path else None

    def prepare(self):
        self.num_prepared += 1

    def store(self, block_ids, host_slots):
        self.prepare()
        with torch.cuda.stream(self.streams["store"]):
            for layer in range(len(self.kv_cache)):
                for block, slot in zip(block_ids, host_slots):
                    # expect: KVG001
                    self.host_cache[layer][slot].copy_(self.kv_cache[layer][block], non_blocking=True)
            self.done["store"].record()

    def load(self, host_slots, block_ids):
        self.prepare()
        load_stream = self.streams["load"]
        load_stream.wait_event(self.done["store"])
        with torch.cuda.stream(load_stream):
            for layer in range(len(self.kv_cache)):
                for slot, block in zip(host_slots, block_ids):
                    # expect: KVG004
                    self.kv_cache[layer][block].copy_(self.host_cache[layer][slot], non_blocking=True)
            self.done["load"].record()
        torch.cuda.current_stream(self.device).wait_event(self.done["load"])

    def snapshot_layer(self, layer):
        if self.writer is not None:
            self.writer.submit(self.kv_cache[layer])
