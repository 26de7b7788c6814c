from dataclasses import dataclass, field
from typing import Any, Optional

import torch


@dataclass
class SlabSlot:
    flat: torch.Tensor
    loaded: Any
    consumed: Any
    owner: Optional[int] = None


@dataclass
class SlabRing:
    """A fixed number of device slabs that the offloaded blocks take turns in."""

    slots: list[SlabSlot] = field(default_factory=list)

    @classmethod
    def allocate(cls, num_slots: int, numel: int, dtype: torch.dtype, device: torch.device, dev_mod: Any) -> "SlabRing":
        slots = [
            SlabSlot(
                flat=torch.empty(numel, dtype=dtype, device=device),
                loaded=dev_mod.Event(),
                consumed=dev_mod.Event(),
            )
            for _ in range(num_slots)
        ]
        return cls(slots)

    def slot(self, block_index: int) -> SlabSlot:
        return self.slots[block_index % len(self.slots)]

    def drain(self) -> None:
        for s in self.slots:
            s.consumed.synchronize()
            s.owner = None
