"""Per-request recurrent state of the Mamba layers: one slot per running request on the
GPU, and a pinned host mirror for preempted requests."""
from dataclasses import dataclass
from typing import List

import torch


@dataclass
class StateShapes:
    num_layers: int
    conv_shape: tuple      # (d_inner, d_conv - 1)
    ssm_shape: tuple       # (nheads, headdim, d_state)
    dtype: torch.dtype = torch.bfloat16


class MambaStatePool:
    def __init__(self, shapes: StateShapes, max_running: int, max_swapped: int):
        self.shapes = shapes
        dev = torch.device("cuda", torch.cuda.current_device())
        self.conv: List[torch.Tensor] = []
        self.ssm: List[torch.Tensor] = []
        self.host_conv: List[torch.Tensor] = []
        self.host_ssm: List[torch.Tensor] = []
        for _ in range(shapes.num_layers):
            self.conv.append(torch.zeros((max_running, *shapes.conv_shape), dtype=shapes.dtype, device=dev))
            self.ssm.append(torch.zeros((max_running, *shapes.ssm_shape), dtype=shapes.dtype, device=dev))
            self.host_conv.append(torch.empty((max_swapped, *shapes.conv_shape), dtype=shapes.dtype,
                                              pin_memory=True))
            self.host_ssm.append(torch.empty((max_swapped, *shapes.ssm_shape), dtype=shapes.dtype,
                                             pin_memory=True))
        self.free_host = list(range(max_swapped))

    def slot_bytes(self) -> List[int]:
        return [self.conv[0][0].nbytes, self.ssm[0][0].nbytes]
