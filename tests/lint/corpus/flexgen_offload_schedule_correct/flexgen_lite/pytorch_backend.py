import os
from enum import Enum, auto
from typing import Any, Optional

import numpy as np
import torch


class DeviceType(Enum):
    CPU = auto()
    CUDA = auto()
    DISK = auto()


class ValueHolder:
    def __init__(self):
        self.val: Optional[Any] = None

    def store(self, val: Any) -> None:
        assert self.val is None, "Overwriting a held value"
        self.val = val

    def pop(self) -> Any:
        ret, self.val = self.val, None
        return ret

    def clear(self) -> None:
        self.val = None


def allocate_home(shape: tuple[int, ...], dtype: torch.dtype, device_type: DeviceType,
                  pin_memory: bool = True, path: Optional[str] = None) -> torch.Tensor:
    """Allocate the persistent ("home") storage of a weight or cache tensor."""
    if device_type == DeviceType.CUDA:
        return torch.empty(shape, dtype=dtype, device="cuda")
    if device_type == DeviceType.CPU:
        return torch.empty(shape, dtype=dtype, pin_memory=pin_memory)
    assert path is not None
    np_dtype = {torch.float16: np.float16, torch.float32: np.float32}[dtype]
    mode = "r+" if os.path.exists(path) else "w+"
    return torch.from_numpy(np.lib.format.open_memmap(path, mode=mode, dtype=np_dtype,
                                                      shape=shape))
