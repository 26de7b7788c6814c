"""The slice of DynamicInferenceContext that allocates KV blocks and evicts cached prefixes."""
import torch

from .config import KVSpillConfig
from .host_tier import HostKVSpillTier


class DynamicInferenceContext:
    def __init__(self, num_layers, num_blocks, block_size, kv_heads, head_dim, spill_config=None):
        self.block_bytes = 2 * num_layers * block_size * kv_heads * head_dim * 2
        self.memory_buffer = torch.empty(num_blocks * self.block_bytes, dtype=torch.uint8, device="cuda")
        self.free_blocks = list(range(num_blocks))
        self.prefix_blocks = {}  # prefix hash -> device block id (evictable LRU order)
        self.step_done = torch.cuda.Event()
        self.spill_tier = HostKVSpillTier(spill_config or KVSpillConfig(), self.memory_buffer, self.block_bytes)

    def run_step(self, model, input_ids, block_table):
        logits = model(input_ids, self.memory_buffer, block_table)
        self.step_done.record()
        return logits

    def allocate_blocks(self, n):
        if len(self.free_blocks) < n:
            self._evict(n - len(self.free_blocks))
        blocks, self.free_blocks = self.free_blocks[:n], self.free_blocks[n:]
        return blocks

    def _evict(self, n):
        victims = list(self.prefix_blocks.items())[:n]
        self.spill_tier.spill(victims, self.step_done)
        for prefix_hash, block_id in victims:
            del self.prefix_blocks[prefix_hash]
            self.free_blocks.append(block_id)
