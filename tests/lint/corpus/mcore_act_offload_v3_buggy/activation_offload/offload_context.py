import contextlib
from typing import Optional

import torch
from torch.autograd.graph import saved_tensors_hooks

from .offload_config import ActivationOffloadConfig
from .offload_handler import ChunkOffloadHandler

_HANDLER: Optional[ChunkOffloadHandler] = None


def _get_handler(config: Optional[ActivationOffloadConfig] = None) -> ChunkOffloadHandler:
    global _HANDLER
    if _HANDLER is None:
        _HANDLER = ChunkOffloadHandler(config or ActivationOffloadConfig())
    return _HANDLER


@contextlib.contextmanager
def get_offload_context(name: str, config: Optional[ActivationOffloadConfig] = None):
    """Wrap the forward of one module; tensors it saves for backward are offloaded to the host."""
    handler = _get_handler(config)
    if name not in handler.config.offload_modules:
        yield
        return
    handler.on_group_start(name)
    with saved_tensors_hooks(handler.tensor_push, handler.tensor_pop):
        yield


def group_commit(*outputs: torch.Tensor):
    """Marks the end of the module's forward; starts the offload of the tensors it saved."""
    handler = _get_handler()
    if handler.current_group is not None:
        handler.on_group_commit_forward()
    return outputs if len(outputs) > 1 else outputs[0]
