"""A gradient bucket filled by copies on whichever stream autograd ran the hook on."""

import torch


class GradBucket:
    def __init__(self, numel: int, device: torch.device) -> None:
        self.buffer = torch.empty(numel, device=device)
        self.offset = 0
        self.copy_streams: set = set()

    def add(self, grad: torch.Tensor) -> None:
        view = self.buffer.narrow(0, self.offset, grad.numel())
        view.copy_(grad.view(-1))
        self.offset += grad.numel()
        self.copy_streams.add(torch.cuda.current_stream())

    def reset(self) -> None:
        self.offset = 0
        self.copy_streams.clear()
