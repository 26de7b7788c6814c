from typing import Mapping, Sequence

import torch
from accelerate.hooks import add_hook_to_module, remove_hook_from_module
from accelerate.utils import PrefixedDataset

from .state import StreamingState
from .streamed_hook import StreamedAlignDevicesHook

ARENA_ALIGN = 64


def _block_layout(block: torch.nn.Module, offload_buffers: bool):
    layout, offset = {}, 0
    tensors = list(block.named_parameters())
    if offload_buffers:
        tensors += list(block.named_buffers())
    for name, tensor in tensors:
        layout[name] = (offset, tensor.shape)
        offset += (tensor.numel() + ARENA_ALIGN - 1) // ARENA_ALIGN * ARENA_ALIGN
    buffer_names = [name for name, _ in block.named_buffers()] if offload_buffers else []
    return layout, offset, buffer_names


def attach_streamed_offload(
    blocks: Sequence[tuple[str, torch.nn.Module]],
    weights_map: Mapping[str, torch.Tensor],
    execution_device,
    offload_buffers: bool = False,
) -> list[StreamedAlignDevicesHook]:
    """Stream the weights of ``blocks`` (``(prefix, module)`` pairs in execution order)
    from the pinned host ``weights_map`` onto ``execution_device``."""
    plans = [(prefix, block, *_block_layout(block, offload_buffers)) for prefix, block in blocks]
    dtypes = {weights_map[f"{prefix}.{name}"].dtype for prefix, _, layout, _, _ in plans for name in layout}
    if len(dtypes) != 1:
        raise ValueError(f"streamed offload needs a single weight dtype, got {dtypes}")
    state = StreamingState(execution_device=execution_device,
                           arena_numel=max(numel for _, _, _, numel, _ in plans),
                           dtype=dtypes.pop())

    hooks = []
    for index, (prefix, block, layout, _, buffer_names) in enumerate(plans):
        hook = StreamedAlignDevicesHook(state, index, PrefixedDataset(weights_map, f"{prefix}."), layout,
                                        buffer_names=buffer_names, offload_buffers=offload_buffers)
        add_hook_to_module(block, hook)
        hooks.append(hook)
    for current, following in zip(hooks, hooks[1:]):
        current.next_hook = following
    return hooks


def remove_streamed_offload(blocks: Sequence[tuple[str, torch.nn.Module]]) -> None:
    for _, block in blocks:
        remove_hook_from_module(block)
