"""ZeRO-Offload style gradient swap-out: backward runs on a dedicated compute stream set with
torch.cuda.set_stream; the swap stream orders itself behind whatever stream is current."""

import torch


class GradSwapper:
    def __init__(self, numel):
        self.compute_stream = torch.cuda.Stream()
        self.swap_stream = torch.cuda.Stream()
        self.fp32_grad = torch.zeros(numel, dtype=torch.float32, device="cuda")
        self.host_grad = torch.empty(numel, dtype=torch.float32, pin_memory=True)
        self.swap_done = None

    def begin_step(self):
        torch.cuda.set_stream(self.compute_stream)

    def swap_out(self):
        # current_stream() is compute_stream here (begin_step set it).
        self.swap_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.swap_stream):
            self.host_grad.copy_(self.fp32_grad, non_blocking=True)
        self.swap_done = self.swap_stream.record_event()

    def end_step(self):
        self.swap_done.synchronize()
        grad_norm = float(self.host_grad.norm())
        torch.cuda.set_stream(torch.cuda.default_stream())
        return grad_norm
