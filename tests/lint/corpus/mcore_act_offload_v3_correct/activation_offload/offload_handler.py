import logging
from typing import Any, Dict, List, Optional, Tuple

import torch

from .host_buffers import HostBufferPool, offload_to_host, reload_to_device
from .offload_config import ActivationOffloadConfig

logger = logging.getLogger(__name__)


class ChunkOffloadHandler:
    """Offloads tensors saved for backward of selected modules and reloads them for the backward pass."""

    def __init__(self, config: ActivationOffloadConfig):
        self.config = config
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.pool = HostBufferPool()
        self._next_tag = 0
        self.current_group: Optional[str] = None
        self._pending: List[Tuple[int, torch.Tensor]] = []
        self._saved: Dict[int, Any] = {}
        self._offload_done: Dict[str, torch.cuda.Event] = {}
        self._group_of: Dict[int, str] = {}

    def tensor_push(self, tensor: torch.Tensor) -> Any:
        if (
            self.current_group is None
            or not tensor.is_cuda
            or tensor.numel() < self.config.min_offloaded_tensor_size
        ):
            return tensor
        tag = self._next_tag
        self._next_tag += 1
        self._group_of[tag] = self.current_group
        if tensor.numel() >= self.config.eager_offload_numel:
            self.d2h_stream.wait_stream(torch.cuda.current_stream())
            self._saved[tag] = (tensor.device, offload_to_host(tensor, self.pool, self.d2h_stream))
        else:
            self._pending.append((tag, tensor))
            self._saved[tag] = None
        return tag

    def tensor_pop(self, tag: Any) -> torch.Tensor:
        if isinstance(tag, torch.Tensor):
            return tag
        event = self._offload_done.get(self._group_of.pop(tag))
        if event is not None:
            self.h2d_stream.wait_event(event)
        else:
            self.h2d_stream.wait_stream(self.d2h_stream)
        device, cpu_buf = self._saved.pop(tag)
        gpu_tensor = reload_to_device(cpu_buf, device, self.h2d_stream)
        torch.cuda.current_stream(device).wait_stream(self.h2d_stream)
        return gpu_tensor

    def on_group_start(self, name: str) -> None:
        self.current_group = name

    def on_group_commit_forward(self) -> None:
        produced = torch.cuda.Event()
        produced.record(torch.cuda.current_stream())
        self.d2h_stream.wait_event(produced)
        for tag, tensor in self._pending:
            self._saved[tag] = (tensor.device, offload_to_host(tensor, self.pool, self.d2h_stream))
        self._pending.clear()
        done = torch.cuda.Event()
        done.record(self.d2h_stream)
        self._offload_done[self.current_group] = done
        self.current_group = None

    def release_host_buffers(self, buffers: List[torch.Tensor]) -> None:
        torch.cuda.current_stream().synchronize()
        for buf in buffers:
            self.pool.put(buf)
