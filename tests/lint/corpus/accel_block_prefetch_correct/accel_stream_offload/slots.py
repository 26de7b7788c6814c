import dataclasses
from typing import Any, Dict, List, Optional

import torch

from .utils import get_device_module


@dataclasses.dataclass
class DeviceSlot:
    """A set of on-device buffers that hold the weights of one block at a time."""

    index: int
    buffers: Dict[str, torch.Tensor]
    ready_event: Any
    release_event: Any
    resident: Optional[int] = None


class SlotPool:
    def __init__(self, template: Dict[str, torch.Tensor], device: torch.device, num_slots: int = 2):
        device_module = get_device_module(device)
        self.slots: List[DeviceSlot] = []
        for index in range(num_slots):
            buffers = {name: torch.empty_like(t, device=device) for name, t in template.items()}
            self.slots.append(
                DeviceSlot(
                    index=index,
                    buffers=buffers,
                    ready_event=device_module.Event(),
                    release_event=device_module.Event(),
                )
            )

    def slot_for(self, block_idx: int) -> DeviceSlot:
        return self.slots[block_idx % len(self.slots)]


def fill_slot(slot: DeviceSlot, host_state: Dict[str, torch.Tensor]) -> None:
    """Copies a block's host weights into the slot buffers on the current stream."""
    for name, host_tensor in host_state.items():
        slot.buffers[name].copy_(host_tensor, non_blocking=True)
