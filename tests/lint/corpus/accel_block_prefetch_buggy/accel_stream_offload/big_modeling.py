import logging
from typing import List, Optional, Sequence, Union

import torch
from torch import nn

from .hooks import PrefetchOffloadHook, add_hook_to_module
from .slots import SlotPool, fill_slot
from .utils import default_execution_device, get_device_module, host_state_dict, set_module_tensor

logger = logging.getLogger(__name__)


class BlockOffloader:
    """
    Streams the weights of identical blocks from pinned host memory into a small pool of
    device slots, loading block `i + 1` on a transfer stream while block `i` runs.
    """

    def __init__(self, blocks: Sequence[nn.Module], execution_device: Union[str, torch.device], num_slots: int = 2):
        self.execution_device = torch.device(execution_device)
        self.device_module = get_device_module(self.execution_device)
        self.transfer_stream = self.device_module.Stream(self.execution_device)
        self.host_states = [host_state_dict(block) for block in blocks]
        self.pool = SlotPool(self.host_states[0], self.execution_device, num_slots)
        self.num_blocks = len(blocks)

    def onload(self, block_idx: int, module: nn.Module) -> None:
        slot = self.pool.slot_for(block_idx)
        compute_stream = self.device_module.current_stream(self.execution_device)
        if slot.resident == block_idx:
            compute_stream.wait_event(slot.ready_event)
        else:
            fill_slot(slot, self.host_states[block_idx])
            slot.resident = block_idx
        for name, buffer in slot.buffers.items():
            set_module_tensor(module, name, buffer)
        if block_idx + 1 < self.num_blocks:
            self._prefetch(block_idx + 1)

    def _prefetch(self, block_idx: int) -> None:
        slot = self.pool.slot_for(block_idx)
        if slot.resident == block_idx:
            return
        self.transfer_stream.wait_event(slot.ready_event)
        with self.device_module.stream(self.transfer_stream):
            fill_slot(slot, self.host_states[block_idx])
            slot.ready_event.record(self.transfer_stream)
        slot.resident = block_idx

    def release(self, block_idx: int) -> None:
        slot = self.pool.slot_for(block_idx)
        slot.release_event.record(self.device_module.current_stream(self.execution_device))

    def close(self) -> None:
        torch.accelerator.synchronize(self.execution_device)


def cpu_offload_with_prefetch(
    blocks: List[nn.Module], execution_device: Optional[Union[str, torch.device]] = None, num_slots: int = 2
) -> BlockOffloader:
    """Offloads a stack of identical blocks to the host, prefetching the next one during each forward."""
    if execution_device is None:
        execution_device = default_execution_device()
    offloader = BlockOffloader(blocks, execution_device, num_slots=num_slots)
    for block_idx, block in enumerate(blocks):
        for name, _ in list(block.named_parameters()):
            set_module_tensor(block, name, torch.empty(0, device="meta"))
        add_hook_to_module(block, PrefetchOffloadHook(block_idx, offloader))
    logger.info("Offloaded %d blocks to host, %d device slots on %s", len(blocks), num_slots, execution_device)
    return offloader
