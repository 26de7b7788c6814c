import logging
from typing import Dict

import torch

logger = logging.getLogger(__name__)


class TorchDevice:
    """Wrap a torch device."""

    def __init__(self, name: str):
        self.name = name
        self.dev = torch.device(name)

    def allocate(self, shape, dtype, pin_memory=None):
        if pin_memory is None:
            pin_memory = self.dev.type == "cpu"
        return torch.empty(shape, dtype=dtype, pin_memory=pin_memory, device=self.dev)

    def allocate_like(self, tensors: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        return {name: self.allocate(t.shape, t.dtype) for name, t in tensors.items()}


def load_to_gpu(dst: Dict[str, torch.Tensor], src: Dict[str, torch.Tensor]):
    """Launch asynchronous host-to-device copies into preallocated buffers."""
    for name, src_tensor in src.items():
        dst[name].copy_(src_tensor, non_blocking=True)


def store_to_cpu(dst: torch.Tensor, src: torch.Tensor, start: int):
    """Launch an asynchronous device-to-host copy into rows [start, start + len)."""
    dst[start:start + src.shape[0]].copy_(src, non_blocking=True)
