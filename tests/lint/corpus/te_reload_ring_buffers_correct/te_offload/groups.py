from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass
class TensorGroup:
    tensor_list: list = field(default_factory=list)
    events: list = field(default_factory=list)
    aux: Any = None


def group_numel(group: TensorGroup) -> int:
    return sum(t.numel() for t in group.tensor_list)


def is_offloadable(tensor, min_numel):
    return (not isinstance(tensor, torch.nn.Parameter)
            and not getattr(tensor, "is_weight", False)
            and tensor.numel() >= min_numel)
