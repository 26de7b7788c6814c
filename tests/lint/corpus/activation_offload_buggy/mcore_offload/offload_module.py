from typing import Callable

import torch
from torch import nn

from .config import ActivationOffloadConfig
from .manager import PipelineOffloadManager


class OffloadedSubmodule(nn.Module):
    """Wraps a transformer submodule so that its saved inputs are kept on the host."""

    def __init__(self, module: nn.Module, name: str, config: ActivationOffloadConfig) -> None:
        super().__init__()
        self.module = module
        self.name = name
        self.enabled = config.enabled_for(name)

    def forward(self, *args, **kwargs):
        if not self.enabled or not torch.is_grad_enabled():
            return self.module(*args, **kwargs)
        manager = PipelineOffloadManager.get_instance()
        handler = manager.forward_chunk
        handler.start_group(self.name)
        with manager:
            output = self.module(*args, **kwargs)
        handler.commit_group()
        return output


def forward_step_with_offload(model: nn.Module, batch, loss_fn: Callable) -> torch.Tensor:
    manager = PipelineOffloadManager.get_instance()
    manager.reset_chunk_handler()
    output = model(batch["tokens"])
    loss = loss_fn(output, batch["labels"])
    loss.backward()
    manager.release_backward_chunk()
    return loss.detach()
