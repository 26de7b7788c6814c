from typing import Optional, Tuple

import torch


class TorchTensor:
    def __init__(self, shape, dtype, data: torch.Tensor, device: "TorchDevice"):
        self.shape = shape
        self.dtype = dtype
        self.data = data
        self.device = device

    @classmethod
    def create_from_torch(cls, data: torch.Tensor, device: "TorchDevice"):
        return cls(data.shape, data.dtype, data, device)


class TorchDevice:
    def __init__(self, name: str) -> None:
        self.name = name
        self.dev = torch.device(name)

    def allocate(self, shape, dtype, pin_memory: Optional[bool] = None) -> TorchTensor:
        if self.dev.type == "cpu":
            pin_memory = True if pin_memory is None else pin_memory
        else:
            pin_memory = False
        data = torch.empty(shape, dtype=dtype, pin_memory=pin_memory, device=self.dev)
        return TorchTensor.create_from_torch(data, self)


class ValueHolder:
    def __init__(self) -> None:
        self.val = None

    def store(self, val) -> None:
        assert self.val is None, "Try to overwrite a non-empty ValueHolder"
        self.val = val

    def pop(self):
        ret = self.val
        self.val = None
        return ret


def general_copy(dst: TorchTensor, dst_indices: Optional[Tuple[slice, ...]], src: TorchTensor,
                 src_indices: Optional[Tuple[slice, ...]]) -> None:
    """Launch a copy from src to dst on the current stream."""
    src_data = src.data[src_indices] if src_indices else src.data
    dst_data = dst.data[dst_indices] if dst_indices else dst.data
    dst_data.copy_(src_data, non_blocking=True)
