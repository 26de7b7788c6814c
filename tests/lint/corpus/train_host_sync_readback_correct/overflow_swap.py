"""Mixed-precision step with an overflow check and a swap-out of the master weights, in the shape
of DeepSpeed's loss scaler plus CPU-offload swapper on plain ``torch.cuda``. The overflow flag is
read back non-blocking and an event recorded after it is synchronised before the host reads it;
that event sits on the compute stream after the update, so it also orders the swap copy. The
second path synchronises the device after the update."""

import torch


class OverflowCheckedSwapper:
    def __init__(self, numel):
        self.master = torch.zeros(numel, dtype=torch.float32, device="cuda")
        self.grads = torch.zeros(numel, dtype=torch.float32, device="cuda")
        self.found_inf = torch.zeros(1, dtype=torch.float32, device="cuda")
        self.swap_stream = torch.cuda.Stream()
        self.host_master = torch.empty(numel, dtype=torch.float32, pin_memory=True)
        self.readback_done = torch.cuda.Event()

    def step(self, lr):
        torch._amp_foreach_non_finite_check_and_unscale_([self.grads], self.found_inf, torch.ones(1, device="cuda"))
        self.master.add_(self.grads, alpha=-lr)
        found_inf_cpu = self.found_inf.to("cpu", non_blocking=True)
        self.readback_done.record()
        self.readback_done.synchronize()
        if found_inf_cpu.item() > 0:
            return False
        with torch.cuda.stream(self.swap_stream):
            self.host_master.copy_(self.master, non_blocking=True)
        return True

    def step_synced_late(self, lr):
        self.master.add_(self.grads, alpha=-lr)
        torch.cuda.synchronize()
        with torch.cuda.stream(self.swap_stream):
            self.host_master.copy_(self.master, non_blocking=True)
        self.swap_stream.synchronize()
