"""Gradient chunk that is reduced on CUDA and stepped on the host."""
from typing import Optional

import torch


class GradChunk:
    def __init__(self, chunk_id: int, master: torch.Tensor, cuda_param: torch.Tensor):
        self.chunk_id = chunk_id
        self.master = master  # fp32, host
        self.cuda_param = cuda_param  # fp16 flat chunk on CUDA
        self.exp_avg = torch.zeros_like(master)
        self.exp_avg_sq = torch.zeros_like(master)
        self.cuda_grad: Optional[torch.Tensor] = None
        self._host_grad: Optional[torch.Tensor] = None
        self._d2h_event: Optional[torch.cuda.Event] = None

    def attach_host_grad(self, host_grad: torch.Tensor, event: torch.cuda.Event) -> None:
        self._host_grad = host_grad
        self._d2h_event = event

    @property
    def host_grad(self) -> torch.Tensor:
        """The gradient as the host optimizer sees it."""
        if self._d2h_event is not None:
            self._d2h_event.synchronize()
            self._d2h_event = None
        return self._host_grad

    @property
    def on_host(self) -> bool:
        return self._host_grad is not None
