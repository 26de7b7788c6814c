# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import Optional

# Third Party
import torch


class MemoryFormat(Enum):
    UNDEFINED = auto()
    # [2, num_tokens, hidden_dim]
    KV_2TD = auto()


@dataclass
class MemoryObjMetadata:
    shape: torch.Size
    dtype: torch.dtype
    fmt: MemoryFormat = MemoryFormat.KV_2TD
    cached_positions: Optional[torch.Tensor] = None


@dataclass
class MemoryObj:
    """A pinned host tensor holding one chunk of one layer."""

    tensor: torch.Tensor
    metadata: MemoryObjMetadata
    ref_count: int = field(default=1)

    def ref_count_down(self) -> None:
        self.ref_count -= 1
