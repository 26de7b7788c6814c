"""The SGLang layer-wise connector: keeps the base hook and overrides the load to scatter layer
group by layer group on the load stream.
Bug: the override drops the base class's wait on the forward stream, so the scatter may
overwrite blocks that queued kernels still read."""

import torch

from lmc_conn.base import GPUConnectorBase


class SGLangLayerwiseConnector(GPUConnectorBase):
    def __init__(self, num_blocks, num_slots, block_numel, num_groups):
        super().__init__(num_blocks, num_slots, block_numel)
        self.num_groups = num_groups
        self.group_events = [torch.cuda.Event() for _ in range(num_groups)]

    def batched_to_gpu(self, slots, block_ids):
        per_group = max(1, len(block_ids) // self.num_groups)
        with torch.cuda.stream(self.load_stream):
            for group in range(self.num_groups):
                part = slice(group * per_group, (group + 1) * per_group)
                for slot, block in zip(slots[part], block_ids[part]):
                    # expect: KVG004
                    self.kv_cache[block].copy_(self.staging[slot], non_blocking=True)
                self.group_events[group].record()

    def wait_group(self, group):
        torch.cuda.current_stream().wait_event(self.group_events[group])
