import logging
from collections import deque
from typing import Optional

import torch
from torch.autograd.graph import saved_tensors_hooks

from .chunk_handler import ChunkOffloadHandler
from .config import ActivationOffloadConfig

logger = logging.getLogger(__name__)


class PipelineOffloadManager:
    """Singleton owning the transfer streams and the chunk handlers of the pipeline schedule."""

    OFFLOAD_MGR: Optional["PipelineOffloadManager"] = None

    @classmethod
    def get_instance(cls, config: Optional[ActivationOffloadConfig] = None) -> "PipelineOffloadManager":
        if cls.OFFLOAD_MGR is None:
            cls.OFFLOAD_MGR = PipelineOffloadManager(config or ActivationOffloadConfig())
        return cls.OFFLOAD_MGR

    def __init__(self, config: ActivationOffloadConfig) -> None:
        self.config = config
        self._d2h_stream = torch.cuda.Stream()
        self._h2d_stream = torch.cuda.Stream()
        self._chunks = deque()
        self._forward_chunk: Optional[ChunkOffloadHandler] = None
        self._hooks: Optional[saved_tensors_hooks] = None

    @property
    def forward_chunk(self) -> ChunkOffloadHandler:
        assert self._forward_chunk is not None, "reset_chunk_handler() was not called"
        return self._forward_chunk

    def reset_chunk_handler(self) -> ChunkOffloadHandler:
        handler = ChunkOffloadHandler(self.config, self._d2h_stream, self._h2d_stream)
        self._chunks.append(handler)
        self._forward_chunk = handler
        return handler

    def release_backward_chunk(self) -> None:
        if self._chunks:
            self._chunks.popleft()

    @staticmethod
    def _pack(tensor: torch.Tensor):
        return PipelineOffloadManager.get_instance().forward_chunk.tensor_push(tensor)

    @staticmethod
    def _unpack(saved):
        if isinstance(saved, torch.Tensor):
            return saved
        handler, tag = saved
        return handler.tensor_pop(tag)

    def __enter__(self) -> "PipelineOffloadManager":
        self._hooks = saved_tensors_hooks(self._pack, self._unpack)
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        assert self._hooks is not None
        self._hooks.__exit__(*exc)
        self._hooks = None
