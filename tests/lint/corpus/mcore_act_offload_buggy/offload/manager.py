# Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.

import logging
from collections import defaultdict, deque
from typing import Optional

import torch

from .chunk_handler import ChunkOffloadHandler
from .config import FineGrainedOffloadConfig

logger = logging.getLogger(__name__)


class CPUTensorPool:
    """Reuses pinned host tensors across iterations, keyed by shape and dtype."""

    def __init__(self):
        self._free = defaultdict(deque)

    def allocate(self, shape, dtype):
        bucket = self._free[(tuple(shape), dtype)]
        if bucket:
            return bucket.popleft()
        return torch.empty(shape, dtype=dtype, device="cpu", pin_memory=True)

    def free(self, tensor):
        self._free[(tuple(tensor.shape), tensor.dtype)].append(tensor)


class PipelineOffloadManager:
    OFFLOAD_MGR: Optional["PipelineOffloadManager"] = None

    @classmethod
    def get_instance(cls, config: Optional[FineGrainedOffloadConfig] = None):
        if cls.OFFLOAD_MGR is None:
            cls.OFFLOAD_MGR = PipelineOffloadManager(config or FineGrainedOffloadConfig())
        return cls.OFFLOAD_MGR

    def __init__(self, config: FineGrainedOffloadConfig):
        self.config = config
        self._d2h_stream = torch.cuda.Stream()
        self._h2d_stream = torch.cuda.Stream()
        self._cpu_tensor_pool = CPUTensorPool()
        self._queue = deque()
        self._cur_forward_chunk: Optional[ChunkOffloadHandler] = None
        self._cur_backward_chunk: Optional[ChunkOffloadHandler] = None

    def init_model_chunk_offload_handler(self):
        chunk = ChunkOffloadHandler(self.config, self._cpu_tensor_pool, self._d2h_stream, self._h2d_stream)
        self._queue.appendleft(chunk)
        self._cur_forward_chunk = chunk

    def pop_backward_chunk(self):
        self._cur_backward_chunk = self._queue.popleft()
        self._cur_backward_chunk.bulk_reload_group()

    def on_save_for_backward(self, tensor):
        return self._cur_forward_chunk.tensor_push(tensor)

    def on_get_saved_tensor(self, saved_state):
        return self._cur_backward_chunk.tensor_pop(saved_state)

    def __enter__(self):
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self.on_save_for_backward, self.on_get_saved_tensor)
        self._hooks.__enter__()

    def __exit__(self, *args):
        self._hooks.__exit__(*args)


def group_prefetch_offload_start(tensor: torch.Tensor, name: str) -> torch.Tensor:
    PipelineOffloadManager.get_instance()._cur_forward_chunk.on_group_start_forward(name)
    return tensor


def group_prefetch_offload_commit(*outputs, name: str, release_tensors=()):
    PipelineOffloadManager.get_instance()._cur_forward_chunk.on_group_commit_forward(name, release_tensors)
    return outputs if len(outputs) > 1 else outputs[0]
