import logging
from typing import Dict, List, Optional, Tuple, Union

import torch

from .config import ActivationOffloadConfig
from .tensor_ops import HostBackup, offload_to_host, reload_to_device, tensor_nbytes

logger = logging.getLogger(__name__)

Tag = Tuple[int, int]


class OffloadTensorGroup:
    """Tensors saved by one module forward, moved to the host together."""

    def __init__(self, index: int, name: str) -> None:
        self.index = index
        self.name = name
        self._tensors: Dict[Tag, Union[torch.Tensor, HostBackup]] = {}
        self._offload_event = torch.cuda.Event()
        self._reload_event = torch.cuda.Event()
        self.reloaded = False
        self.total_offload_bytes = 0

    def push(self, tag: Tag, item: Union[torch.Tensor, HostBackup]) -> None:
        self._tensors[tag] = item

    def pop(self, tag: Tag):
        return self._tensors.pop(tag)

    def items(self):
        return list(self._tensors.items())

    def record_offload_event(self, stream: torch.cuda.Stream) -> None:
        self._offload_event.record(stream)

    def wait_offload_event(self, stream: torch.cuda.Stream) -> None:
        stream.wait_event(self._offload_event)

    def record_reload_event(self, stream: torch.cuda.Stream) -> None:
        self._reload_event.record(stream)

    def wait_reload_event(self, stream: torch.cuda.Stream) -> None:
        stream.wait_event(self._reload_event)


class ChunkOffloadHandler:
    """Offloads the activations of one model chunk and reloads them in backward."""

    def __init__(
        self,
        config: ActivationOffloadConfig,
        d2h_stream: torch.cuda.Stream,
        h2d_stream: torch.cuda.Stream,
    ) -> None:
        self.config = config
        self._d2h_stream = d2h_stream
        self._h2d_stream = h2d_stream
        self._groups: List[OffloadTensorGroup] = []
        self._current_group: Optional[OffloadTensorGroup] = None
        self._tensor_count = 0

    def _is_offloadable(self, tensor: torch.Tensor) -> bool:
        if isinstance(tensor, torch.nn.Parameter) or not tensor.is_cuda:
            return False
        return tensor.numel() >= self.config.min_offloaded_tensor_size

    def start_group(self, name: str) -> None:
        self._current_group = OffloadTensorGroup(len(self._groups), name)
        self._groups.append(self._current_group)

    def tensor_push(self, tensor: torch.Tensor):
        group = self._current_group
        if group is None or not self._is_offloadable(tensor):
            return tensor
        tag = (group.index, self._tensor_count)
        self._tensor_count += 1
        if tensor.numel() >= self.config.eager_offload_numel:
            with torch.cuda.stream(self._d2h_stream):
                state = offload_to_host(tensor, self.config.pin_memory)
            tensor.record_stream(self._d2h_stream)
            group.total_offload_bytes += tensor_nbytes(tensor)
            group.push(tag, state)
        else:
            group.push(tag, tensor)
        return (self, tag)

    def commit_group(self) -> None:
        group = self._current_group
        if group is None:
            return
        self._d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._d2h_stream):
            for tag, item in group.items():
                if isinstance(item, HostBackup):
                    continue
                group.push(tag, offload_to_host(item, self.config.pin_memory))
                item.record_stream(self._d2h_stream)
                group.total_offload_bytes += tensor_nbytes(item)
        group.record_offload_event(self._d2h_stream)
        if self.config.log_offload_stats:
            logger.info("offloaded group %s: %d bytes", group.name, group.total_offload_bytes)
        self._current_group = None

    def bulk_reload_group(self, group: OffloadTensorGroup) -> None:
        group.wait_offload_event(self._h2d_stream)
        with torch.cuda.stream(self._h2d_stream):
            for tag, state in group.items():
                group.push(tag, reload_to_device(state))
        group.record_reload_event(self._h2d_stream)
        group.reloaded = True

    def tensor_pop(self, tag: Tag) -> torch.Tensor:
        group = self._groups[tag[0]]
        if not group.reloaded:
            self.bulk_reload_group(group)
        group.wait_reload_event(torch.cuda.current_stream())
        tensor = group.pop(tag)
        tensor.record_stream(torch.cuda.current_stream())
        return tensor
