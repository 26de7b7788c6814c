"""Tensor placement helpers for the offloaded generation engine."""
from typing import Any, Optional

import torch


class ValueHolder:
    def __init__(self):
        self.val: Optional[Any] = None

    def store(self, val: Any) -> None:
        assert self.val is None, "value already stored"
        self.val = val

    def pop(self) -> Any:
        ret = self.val
        self.val = None
        return ret

    def clear(self) -> None:
        self.val = None


class TorchDevice:
    def __init__(self, name: str):
        self.name = name
        self.dev = torch.device(name)

    def allocate_pinned(self, shape, dtype) -> torch.Tensor:
        return torch.empty(shape, dtype=dtype, pin_memory=True)

    def load_from_host(self, host_tensor: torch.Tensor) -> torch.Tensor:
        # A fresh device tensor per load; the caching allocator tracks the stream.
        return host_tensor.to(self.dev, non_blocking=True)


def general_copy(dst: torch.Tensor, src: torch.Tensor) -> None:
    """Copy `src` into the (possibly host-resident) view `dst`."""
    if dst.device.type == "cpu" and src.device.type == "cuda":
        dst.copy_(src, non_blocking=True)
    else:
        dst.copy_(src)
