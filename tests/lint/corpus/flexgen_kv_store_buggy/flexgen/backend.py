from enum import Enum, auto
from typing import Optional, Tuple

import torch


class DeviceType(Enum):
    CPU = auto()
    CUDA = auto()


class TorchTensor:
    """A tensor together with the device wrapper that owns it."""

    def __init__(self, data: torch.Tensor, device: "TorchDevice"):
        self.data = data
        self.device = device
        self.shape = tuple(data.shape)


class TorchDevice:
    def __init__(self, name: str):
        self.name = name
        self.dev = torch.device(name)
        self.device_type = DeviceType.CUDA if self.dev.type == "cuda" else DeviceType.CPU

    def allocate(self, shape, dtype=torch.float16, pin_memory: Optional[bool] = None) -> TorchTensor:
        if self.device_type == DeviceType.CPU:
            pin_memory = True if pin_memory is None else pin_memory
        else:
            pin_memory = False
        data = torch.empty(shape, dtype=dtype, pin_memory=pin_memory, device=self.dev)
        return TorchTensor(data, self)

    def init_cache_one_gpu_batch(self, max_seq_len: int, batch_heads: int, head_dim: int):
        shape = (max_seq_len, batch_heads, head_dim)
        return self.allocate(shape), self.allocate(shape)


def general_copy(dst: TorchTensor, dst_indices: Optional[Tuple[slice, ...]],
                 src: TorchTensor, src_indices: Optional[Tuple[slice, ...]]) -> None:
    """Launch an asynchronous copy `dst[dst_indices] = src[src_indices]`.

    To wait for the copy to complete, call `torch.cuda.synchronize()`.
    """
    src_data = src.data[src_indices] if src_indices else src.data
    dst_data = dst.data[dst_indices] if dst_indices else dst.data
    if src.device.device_type == DeviceType.CUDA and dst.device.device_type == DeviceType.CPU:
        # expect: KVG001
        dst_data.copy_(src_data, non_blocking=True)
    elif src.device.device_type == DeviceType.CPU and not src_data.is_pinned():
        dst_data.copy_(src_data.pin_memory(), non_blocking=True)
    else:
        dst_data.copy_(src_data, non_blocking=True)
