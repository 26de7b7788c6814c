"""Per-matrix state: device moments for the important columns, a device staging buffer for the
other columns' gradient, and their pinned host gradient, accumulator and CPU Adam state."""

from dataclasses import dataclass, field
from typing import Optional

import torch


@dataclass
class ColumnState:
    param: torch.Tensor
    num_important: int
    important_idx: Optional[torch.Tensor] = None
    rest_idx: Optional[torch.Tensor] = None
    rest_idx_host: Optional[torch.Tensor] = None
    gpu_exp_avg: Optional[torch.Tensor] = None
    gpu_exp_avg_sq: Optional[torch.Tensor] = None
    stage: Optional[torch.Tensor] = None
    host_grad: Optional[torch.Tensor] = None
    host_accum: Optional[torch.Tensor] = None
    host_master: Optional[torch.Tensor] = None
    host_exp_avg: Optional[torch.Tensor] = None
    host_exp_avg_sq: Optional[torch.Tensor] = None
    accumulated: int = 0
    cpu_steps: int = 0
    gpu_steps: int = 0
    history: list = field(default_factory=list)

    @property
    def rows(self):
        return self.param.shape[0]

    @property
    def num_rest(self):
        return self.param.shape[1] - self.num_important

    def allocate(self):
        dev = self.param.device
        self.gpu_exp_avg = torch.zeros(self.rows, self.num_important, dtype=torch.float32, device=dev)
        self.gpu_exp_avg_sq = torch.zeros(self.rows, self.num_important, dtype=torch.float32, device=dev)
        self.stage = torch.empty(self.rows, self.num_rest, dtype=self.param.dtype, device=dev)
        self.host_grad = torch.empty(self.rows, self.num_rest, dtype=self.param.dtype, pin_memory=True)
        self.host_accum = torch.zeros(self.rows, self.num_rest, dtype=torch.float32)
        self.host_master = torch.empty(self.rows, self.num_rest, dtype=torch.float32, pin_memory=True)
        self.host_exp_avg = torch.zeros(self.rows, self.num_rest, dtype=torch.float32)
        self.host_exp_avg_sq = torch.zeros(self.rows, self.num_rest, dtype=torch.float32)
