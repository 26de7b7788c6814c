"""Mixed-precision step with an overflow check and a swap-out of the master weights, in the shape
of DeepSpeed's loss scaler plus CPU-offload swapper on plain ``torch.cuda``. Bugs: the overflow
flag is read back with ``.to("cpu", non_blocking=True)`` and read on the host at once, and that
non-blocking read-back is taken as if it had synchronised, so the swap copy on the side stream has
no barrier behind the step; the second path synchronises the device before the step is launched."""

import torch


class OverflowCheckedSwapper:
    def __init__(self, numel):
        self.master = torch.zeros(numel, dtype=torch.float32, device="cuda")
        self.grads = torch.zeros(numel, dtype=torch.float32, device="cuda")
        self.found_inf = torch.zeros(1, dtype=torch.float32, device="cuda")
        self.swap_stream = torch.cuda.Stream()
        self.host_master = torch.empty(numel, dtype=torch.float32, pin_memory=True)

    def step(self, lr):
        torch._amp_foreach_non_finite_check_and_unscale_([self.grads], self.found_inf, torch.ones(1, device="cuda"))
        self.master.add_(self.grads, alpha=-lr)
        found_inf_cpu = self.found_inf.to("cpu", non_blocking=True)
        # expect: KVG003
        if found_inf_cpu.item() > 0:
            return False
        with torch.cuda.stream(self.swap_stream):
            # expect: KVG001
            self.host_master.copy_(self.master, non_blocking=True)
        return True

    def step_synced_early(self, lr):
        torch.cuda.synchronize()
        self.master.add_(self.grads, alpha=-lr)
        with torch.cuda.stream(self.swap_stream):
            # expect: KVG001
            self.host_master.copy_(self.master, non_blocking=True)
        self.swap_stream.synchronize()
