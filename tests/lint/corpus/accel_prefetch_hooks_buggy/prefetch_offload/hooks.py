import logging
from typing import List, Mapping, Optional

import torch
import torch.nn as nn

from .constants import NUM_STAGING_SLOTS
from .device_utils import current_stream, get_device_module, new_stream
from .staging import StagingArena, build_layout

logger = logging.getLogger(__name__)


class ModelHook:
    def init_hook(self, module: nn.Module) -> nn.Module:
        return module

    def pre_forward(self, module: nn.Module, *args, **kwargs):
        return args, kwargs

    def post_forward(self, module: nn.Module, output):
        return output


class PrefetchOffloadHook(ModelHook):
    """
    Keeps the weights of a module in (pinned) host memory and streams them into a device staging slot.
    While module `i` runs, the weights of module `i + 1` are copied on a side stream.
    """

    def __init__(self, index: int, weights_map: Mapping[str, torch.Tensor], arena: StagingArena, stream):
        self.index = index
        self.weights_map = weights_map
        self.arena = arena
        self.stream = stream
        self.slot = index % NUM_STAGING_SLOTS
        self.layout, _ = build_layout(weights_map)
        self.next_hook: Optional["PrefetchOffloadHook"] = None
        self.prefetched = False

    def _bind(self, module: nn.Module, tensors: Mapping[str, torch.Tensor]) -> None:
        for name, tensor in tensors.items():
            submodule_name, _, param_name = name.rpartition(".")
            submodule = module.get_submodule(submodule_name) if submodule_name else module
            submodule._parameters[param_name] = nn.Parameter(tensor, requires_grad=False)

    def prefetch(self) -> None:
        dev_mod = get_device_module(self.arena.device)
        with dev_mod.stream(self.stream):
            self.arena.load(self.slot, self.layout, self.weights_map)
            self.arena.loaded[self.slot].record(self.stream)
        self.prefetched = True

    def pre_forward(self, module: nn.Module, *args, **kwargs):
        compute = current_stream(self.arena.device)
        if self.prefetched:
            compute.wait_event(self.arena.loaded[self.slot])
            tensors = self.arena.views(self.slot, self.layout)
        else:
            tensors = self.arena.load(self.slot, self.layout, self.weights_map)
        self.prefetched = False
        self._bind(module, tensors)
        if self.next_hook is not None:
            self.next_hook.prefetch()
        return args, kwargs

    def post_forward(self, module: nn.Module, output):
        self.arena.released[self.slot].record(current_stream(self.arena.device))
        return output


class PrefetchedSequential(nn.Module):
    def __init__(self, blocks: List[nn.Module], hooks: List[PrefetchOffloadHook]):
        super().__init__()
        self.blocks = nn.ModuleList(blocks)
        self.hooks = hooks

    def forward(self, hidden_states: torch.Tensor, **kwargs) -> torch.Tensor:
        for block, hook in zip(self.blocks, self.hooks):
            args, kw = hook.pre_forward(block, hidden_states, **kwargs)
            output = block(*args, **kw)
            hidden_states = hook.post_forward(block, output)
        return hidden_states


def attach_prefetch_offload(
    blocks: List[nn.Module], execution_device: torch.device, pin_memory: bool = True
) -> PrefetchedSequential:
    weights_maps = []
    for block in blocks:
        state = {n: p.detach().to("cpu") for n, p in block.named_parameters()}
        if pin_memory:
            state = {n: t.pin_memory() for n, t in state.items()}
        weights_maps.append(state)
        block.to("meta")
    capacity = max(build_layout(w)[1] for w in weights_maps)
    arena = StagingArena(capacity, execution_device)
    stream = new_stream(execution_device)
    hooks = [PrefetchOffloadHook(i, w, arena, stream) for i, w in enumerate(weights_maps)]
    for hook, nxt in zip(hooks, hooks[1:]):
        hook.next_hook = nxt
    logger.info("Attached prefetching offload hooks to %d blocks", len(blocks))
    return PrefetchedSequential(blocks, hooks)
