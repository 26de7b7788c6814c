from dataclasses import dataclass
from typing import Any, Optional, Tuple

import torch


@dataclass
class MemoryObjMetadata:
    shape: Tuple[int, ...]
    dtype: torch.dtype
    fmt: str = "KV_2LTD"


class TensorMemoryObj:
    def __init__(self, tensor: torch.Tensor, metadata: MemoryObjMetadata):
        self.tensor = tensor
        self.metadata = metadata
        self.copy_event: Optional[Any] = None

    @property
    def nbytes(self) -> int:
        return self.tensor.numel() * self.tensor.element_size()
