# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
import logging
from dataclasses import dataclass
from typing import Any, Dict, Optional

import torch
from cuda.bindings import runtime

from . import cudart
from .config import PipelineOffloadConfig

logger = logging.getLogger(__name__)


@dataclass
class _StashEntry:
    host: torch.Tensor
    d2h_done: Any
    device_tensor: Optional[torch.Tensor]


class MicrobatchActivationStash:
    """Moves per-microbatch recompute checkpoints to pinned host memory on its own stream and back."""

    def __init__(self, config: PipelineOffloadConfig):
        self.config = config
        self.offload_stream = cudart.create_stream(config.stream_priority)
        self.forward_done = cudart.create_event()
        self.reload_done = cudart.create_event()
        self._entries: Dict[int, _StashEntry] = {}

    def _release_finished(self) -> None:
        for entry in self._entries.values():
            if entry.device_tensor is not None and cudart.event_done(entry.d2h_done):
                entry.device_tensor = None

    def offload(self, microbatch_id: int, tensor: torch.Tensor) -> None:
        self._release_finished()
        host = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu", pin_memory=True)
        nbytes = tensor.numel() * tensor.element_size()
        cudart.check_cuda(runtime.cudaMemcpyAsync(host.data_ptr(), tensor.data_ptr(), nbytes,
                                                  runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost,
                                                  self.offload_stream))
        d2h_done = cudart.create_event()
        cudart.record_event(d2h_done, self.offload_stream)
        self._entries[microbatch_id] = _StashEntry(host=host, d2h_done=d2h_done, device_tensor=tensor)

    def reload(self, microbatch_id: int, compute_stream: int) -> torch.Tensor:
        entry = self._entries.pop(microbatch_id)
        dst = torch.empty(entry.host.shape, dtype=entry.host.dtype, device=torch.cuda.current_device())
        nbytes = dst.numel() * dst.element_size()
        cudart.check_cuda(runtime.cudaMemcpyAsync(dst.data_ptr(), entry.host.data_ptr(), nbytes,
                                                  runtime.cudaMemcpyKind.cudaMemcpyHostToDevice,
                                                  self.offload_stream))
        cudart.record_event(self.reload_done, self.offload_stream)
        cudart.stream_wait_event(compute_stream, self.reload_done)
        runtime.cudaEventDestroy(entry.d2h_done)
        return dst
