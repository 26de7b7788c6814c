import logging
from typing import Sequence

import torch
import torch.nn as nn

from .hooks import StreamedOffloadHook
from .slab import SlabRing
from .utils import DeviceLike, device_module, flatten_to_host

logger = logging.getLogger(__name__)

_HANDLES_ATTR = "_streamed_offload_handles"


def attach_streamed_offload(
    blocks: Sequence[nn.Module],
    execution_device: DeviceLike,
    *,
    num_slots: int = 2,
    pin_memory: bool = True,
) -> list[StreamedOffloadHook]:
    device = torch.device(execution_device)
    dev_mod = device_module(device)
    transfer_stream = dev_mod.Stream(device=device)

    flats = [flatten_to_host(block, pin_memory) for block in blocks]
    numel = max(flat.numel() for flat, _ in flats)
    ring = SlabRing.allocate(num_slots, numel, flats[0][0].dtype, device, dev_mod)

    hooks = [
        StreamedOffloadHook(i, flat, layout, ring, transfer_stream, dev_mod, device)
        for i, (flat, layout) in enumerate(flats)
    ]
    for hook, nxt in zip(hooks, hooks[1:]):
        hook.next_hook = nxt

    for block, hook in zip(blocks, hooks):
        handles = [
            block.register_forward_pre_hook(hook.pre_forward),
            block.register_forward_hook(hook.post_forward),
        ]
        setattr(block, _HANDLES_ATTR, handles)
    logger.info("streaming %d blocks through %d slabs of %d elements", len(blocks), num_slots, numel)
    return hooks


def remove_streamed_offload(blocks: Sequence[nn.Module], hooks: Sequence[StreamedOffloadHook]) -> None:
    if hooks:
        hooks[0].ring.drain()
    for block in blocks:
        for handle in getattr(block, _HANDLES_ATTR, []):
            handle.remove()
        if hasattr(block, _HANDLES_ATTR):
            delattr(block, _HANDLES_ATTR)
