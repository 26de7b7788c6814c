"""Parameter swap-out after an optimizer update, in the shape of DeepSpeed's ZeRO-Offload parameter
swapper: the update runs on the compute stream, then the fp16 partition is copied into a pinned
buffer on a swap stream. Every path takes a host-blocking synchronisation of the compute stream
after the update and before the copy: an explicit device, stream or event sync, or one implied by a
blocking read-back (``.item()``, ``.tolist()``, ``.cpu()``) or a blocking upload from pageable
memory on the compute stream."""

import torch
from deepspeed.accelerator import get_accelerator


class PartitionSwapper:
    def __init__(self, numel):
        device = get_accelerator().device_name()
        self.partition = torch.zeros(numel, dtype=torch.float16, device=device)
        self.update = torch.zeros(numel, dtype=torch.float16, device=device)
        self.overflow_flags = torch.zeros(8, dtype=torch.int32, device=device)
        self.lr_gpu = torch.zeros(1, dtype=torch.float32, device=device)
        self.swap_stream = get_accelerator().Stream()
        self.host_partition = get_accelerator().pin_memory(torch.empty(numel, dtype=torch.float16))

    def _swap_out(self):
        with get_accelerator().stream(self.swap_stream):
            self.host_partition.copy_(self.partition, non_blocking=True)
        self.swap_stream.synchronize()

    def step_checking_norm(self):
        self.partition.add_(self.update)
        norm = self.partition.float().norm().item()
        self._swap_out()
        return norm

    def step_checking_overflow(self):
        self.partition.add_(self.update)
        self.overflow_flags[0] = torch.isinf(self.partition).sum()
        flags = self.overflow_flags.tolist()
        if any(flags):
            return False
        self._swap_out()
        return True

    def step_logging_update(self):
        self.partition.add_(self.update)
        logged = self.update[:16].cpu()
        self._swap_out()
        return logged

    def step_device_sync(self):
        self.partition.add_(self.update)
        get_accelerator().synchronize()
        self._swap_out()

    def step_event_sync(self):
        self.partition.add_(self.update)
        updated = get_accelerator().Event()
        updated.record(get_accelerator().current_stream())
        updated.synchronize()
        self._swap_out()

    def step_stream_sync(self):
        self.partition.add_(self.update)
        get_accelerator().current_stream().synchronize()
        self._swap_out()

    def step_then_set_lr(self, lr):
        self.partition.add_(self.update)
        # A blocking upload from pageable memory waits for the compute stream to drain.
        self.lr_gpu.copy_(torch.tensor([lr], dtype=torch.float32))
        self._swap_out()
