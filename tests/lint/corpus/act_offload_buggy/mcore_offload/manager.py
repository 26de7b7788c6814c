# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import Optional

import torch
from torch.autograd.graph import saved_tensors_hooks

from .chunk_handler import ChunkOffloadHandler
from .config import FineGrainedOffloadConfig


class PipelineOffloadManager:
    """Singleton entry point; one chunk handler per model chunk in flight."""

    _instance: Optional["PipelineOffloadManager"] = None

    def __init__(self):
        self.handler: Optional[ChunkOffloadHandler] = None
        self._hooks: Optional[saved_tensors_hooks] = None

    @classmethod
    def get_instance(cls) -> "PipelineOffloadManager":
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def reset_chunk_handler(self, config: FineGrainedOffloadConfig) -> None:
        self.handler = ChunkOffloadHandler(config)

    def __enter__(self):
        self._hooks = saved_tensors_hooks(self.handler.tensor_push, self.handler.tensor_pop)
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc):
        self._hooks.__exit__(*exc)
        self._hooks = None
        return False


def group_prefetch_offload_start(tensor: torch.Tensor, name: str) -> torch.Tensor:
    manager = PipelineOffloadManager.get_instance()
    if manager.handler is not None and manager.handler.config.wants(name):
        manager.handler.group_start(name)
    return tensor


def group_prefetch_offload_commit(*outputs: torch.Tensor):
    manager = PipelineOffloadManager.get_instance()
    if manager.handler is not None:
        manager.handler.group_commit()
    return outputs if len(outputs) > 1 else outputs[0]
