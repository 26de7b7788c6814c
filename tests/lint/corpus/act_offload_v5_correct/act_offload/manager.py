import logging
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import torch
from torch.autograd.graph import saved_tensors_hooks

from .config import ActivationOffloadConfig
from .copy_worker import OffloadCopyWorker

logger = logging.getLogger(__name__)


@dataclass
class _OffloadGroup:
    name: str
    group_id: int
    tensors: List[torch.Tensor] = field(default_factory=list)
    ready_event: torch.cuda.Event = field(default_factory=torch.cuda.Event)
    offload_future: Optional[Any] = None
    reload_future: Optional[Any] = None
    pending_unpacks: int = 0


class PipelineOffloadManager(saved_tensors_hooks):
    """Collects tensors saved for backward inside an offload group and moves them to the host."""

    _instance: Optional["PipelineOffloadManager"] = None

    @classmethod
    def get_instance(cls) -> "PipelineOffloadManager":
        if cls._instance is None:
            cls._instance = cls(ActivationOffloadConfig(), torch.device("cuda", torch.cuda.current_device()))
        return cls._instance

    def __init__(self, config: ActivationOffloadConfig, device: torch.device) -> None:
        super().__init__(self._pack, self._unpack)
        self.config = config
        self.worker = OffloadCopyWorker(device, config.num_copy_workers)
        self._groups: Dict[int, _OffloadGroup] = {}
        self._current: Optional[_OffloadGroup] = None
        self._next_group_id = 0

    def _is_offloadable(self, tensor: torch.Tensor) -> bool:
        if not tensor.is_cuda or isinstance(tensor, torch.nn.Parameter):
            return False
        return tensor.numel() >= self.config.min_offloaded_tensor_size

    def group_start(self, name: str) -> None:
        group = _OffloadGroup(name, self._next_group_id)
        self._next_group_id += 1
        self._groups[group.group_id] = group
        self._current = group

    def group_commit(self) -> None:
        group = self._current
        self._current = None
        if group is None or not group.tensors:
            return
        group.ready_event.record(torch.cuda.current_stream())
        group.offload_future = self.worker.submit_offload(group.name, group.tensors, group.ready_event)

    def _pack(self, tensor: torch.Tensor):
        group = self._current
        if group is None or not self._is_offloadable(tensor):
            return tensor
        group.tensors.append(tensor)
        group.pending_unpacks += 1
        return (group.group_id, len(group.tensors) - 1)

    def _unpack(self, handle):
        if isinstance(handle, torch.Tensor):
            return handle
        group_id, index = handle
        group = self._groups[group_id]
        if group.reload_future is None:
            cpu_tensors, offloaded = group.offload_future.result()
            group.reload_future = self.worker.submit_reload(cpu_tensors, offloaded)
        gpu_tensors, reloaded = group.reload_future.result()
        compute_stream = torch.cuda.current_stream()
        compute_stream.wait_event(reloaded)
        tensor = gpu_tensors[index]
        tensor.record_stream(compute_stream)
        group.pending_unpacks -= 1
        if group.pending_unpacks == 0:
            del self._groups[group_id]
        return tensor
