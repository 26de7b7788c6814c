from typing import Any, Dict, Tuple

import torch


class ValueHolder:
    def __init__(self):
        self.val = None

    def store(self, val: Any) -> None:
        assert self.val is None, "Storing a value into a non-empty holder."
        self.val = val

    def pop(self) -> Any:
        ret, self.val = self.val, None
        return ret

    def clear(self) -> None:
        self.val = None


def allocate_home(shape: Tuple[int, ...], dtype: torch.dtype, pin_memory: bool) -> torch.Tensor:
    return torch.zeros(shape, dtype=dtype, device="cpu", pin_memory=pin_memory)


def load_to_device(host_tensors: Dict[str, torch.Tensor], device: torch.device) -> Dict[str, torch.Tensor]:
    return {name: t.to(device, non_blocking=True) for name, t in host_tensors.items()}


def load_cache_prefix(
    home_k: torch.Tensor, home_v: torch.Tensor, length: int, device: torch.device
) -> Tuple[torch.Tensor, torch.Tensor]:
    k = home_k[:length].to(device, non_blocking=True)
    v = home_v[:length].to(device, non_blocking=True)
    return k, v


def copy_cache_to_home(
    home_k: torch.Tensor, home_v: torch.Tensor, new_k: torch.Tensor, new_v: torch.Tensor, pos: int
) -> None:
    """Writes the key/value of one generated token into the CPU home of the cache (layout: s, b, h)."""
    home_k[pos].copy_(new_k, non_blocking=True)
    home_v[pos].copy_(new_v, non_blocking=True)
