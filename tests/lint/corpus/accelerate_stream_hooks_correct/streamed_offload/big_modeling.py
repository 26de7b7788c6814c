import logging
from typing import List, Optional, Union

import torch
import torch.nn as nn

from .hooks import StreamedAlignDevicesHook
from .slots import WeightSlots
from .utils import get_device_module, offload_state_dict

logger = logging.getLogger(__name__)


def _add_hook_to_module(module: nn.Module, hook: StreamedAlignDevicesHook) -> nn.Module:
    module._hf_hook = hook

    def _pre(mod, args, kwargs):
        return hook.pre_forward(mod, *args, **kwargs)

    def _post(mod, args, output):
        return hook.post_forward(mod, output)

    module.register_forward_pre_hook(_pre, with_kwargs=True)
    module.register_forward_hook(_post)
    return module


def cpu_offload_with_streams(
    blocks: List[nn.Module],
    execution_device: Optional[Union[int, str, torch.device]] = None,
    pin_memory: bool = True,
) -> List[nn.Module]:
    """
    Offloads the parameters of a sequence of blocks (e.g. decoder layers) to the
    CPU and streams them back one block ahead of execution.
    """
    if execution_device is None:
        execution_device = torch.accelerator.current_accelerator()
    execution_device = torch.device(execution_device)
    device_module = get_device_module(execution_device)
    copy_stream = device_module.Stream(device=execution_device)

    weights_maps = [offload_state_dict(block, pin_memory=pin_memory) for block in blocks]
    shapes = {}
    dtype = None
    for weights_map in weights_maps:
        for name, value in weights_map.items():
            shapes[name] = max(shapes.get(name, 0), value.numel())
            dtype = value.dtype
    slots = WeightSlots(shapes, dtype, execution_device)

    hooks = []
    for index, (block, weights_map) in enumerate(zip(blocks, weights_maps)):
        hook = StreamedAlignDevicesHook(index, execution_device, weights_map, slots, copy_stream)
        for name in weights_map:
            block._parameters[name] = nn.Parameter(torch.empty(0, device="meta"), requires_grad=False)
        _add_hook_to_module(block, hook)
        hooks.append(hook)
    for hook, next_hook in zip(hooks, hooks[1:]):
        hook.next_hook = next_hook
    logger.info("streaming %d blocks through %d device slots", len(blocks), len(slots.slots))
    return blocks
