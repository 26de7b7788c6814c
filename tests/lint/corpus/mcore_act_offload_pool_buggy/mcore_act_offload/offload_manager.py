# Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
from contextlib import contextmanager
from typing import Dict, Iterator, List, Optional

import torch

from .chunk_handler import ChunkOffloadHandler
from .copy_utils import GPUTensorPool
from .offload_config import ActivationOffloadConfig


class PipelineOffloadManager:
    """Singleton that owns the copy streams and one handler per virtual stage."""

    _instance: Optional["PipelineOffloadManager"] = None

    def __init__(self, config: ActivationOffloadConfig):
        self.config = config
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.pool = GPUTensorPool(torch.device("cuda", torch.cuda.current_device()))
        self._handlers: Dict[int, ChunkOffloadHandler] = {}
        self._active: Optional[ChunkOffloadHandler] = None
        self._backward_order: List[str] = []

    @classmethod
    def get_instance(cls, config: Optional[ActivationOffloadConfig] = None) -> "PipelineOffloadManager":
        if cls._instance is None:
            cls._instance = cls(config or ActivationOffloadConfig())
        return cls._instance

    def reset_chunk_handler(self, vp_stage: int) -> ChunkOffloadHandler:
        handler = ChunkOffloadHandler(
            vp_stage, self.d2h_stream, self.h2d_stream, self.pool,
            self.config.min_offload_numel, self.config.pin_memory,
        )
        self._handlers[vp_stage] = handler
        self._active = handler
        return handler

    @contextmanager
    def offload_group(self, name: str) -> Iterator[None]:
        handler = self._active
        handler.start_group(name)
        with torch.autograd.graph.saved_tensors_hooks(handler.tensor_push, handler.tensor_pop):
            yield
        handler.commit_group_forward()
        self._backward_order.append(name)

    def on_backward_group_start(self, vp_stage: int, name: str) -> None:
        handler = self._handlers[vp_stage]
        order = self._backward_order
        if name in order and order.index(name) > 0:
            handler.prefetch_group_backward(order[order.index(name) - 1])

    def on_backward_group_end(self, vp_stage: int, name: str) -> None:
        self._handlers[vp_stage].release_group_backward(name)
