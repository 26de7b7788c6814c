"""Parameter swap-out after an optimizer update, in the shape of DeepSpeed's ZeRO-Offload parameter
swapper: the update runs on the compute stream, then the fp16 partition is copied into a pinned
buffer on a swap stream. Bugs: each path takes a host synchronisation that does not cover the
update: the swap stream's own ``synchronize()``, a norm read back by ``.item()`` before the update
was launched, and an event recorded on the swap stream rather than the compute stream."""

import torch
from deepspeed.accelerator import get_accelerator


class PartitionSwapper:
    def __init__(self, numel):
        device = get_accelerator().device_name()
        self.partition = torch.zeros(numel, dtype=torch.float16, device=device)
        self.update = torch.zeros(numel, dtype=torch.float16, device=device)
        self.swap_stream = get_accelerator().Stream()
        self.swap_done = get_accelerator().Event()
        self.host_partition = get_accelerator().pin_memory(torch.empty(numel, dtype=torch.float16))

    def step_after_swap_stream_sync(self):
        self.partition.add_(self.update)
        # Drains earlier swaps only; the update is on the compute stream.
        self.swap_stream.synchronize()
        with get_accelerator().stream(self.swap_stream):
            # expect: KVG001
            self.host_partition.copy_(self.partition, non_blocking=True)
        self.swap_stream.synchronize()

    def step_after_stale_norm(self):
        norm = self.update.float().norm().item()
        if norm > 1.0e4:
            return False
        self.partition.add_(self.update)
        with get_accelerator().stream(self.swap_stream):
            # expect: KVG001
            self.host_partition.copy_(self.partition, non_blocking=True)
        self.swap_stream.synchronize()
        return True

    def step_after_swap_event(self):
        self.partition.add_(self.update)
        self.swap_done.record(self.swap_stream)
        self.swap_done.synchronize()
        with get_accelerator().stream(self.swap_stream):
            # expect: KVG001
            self.host_partition.copy_(self.partition, non_blocking=True)
        self.swap_done.record(self.swap_stream)
