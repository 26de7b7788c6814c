"""Group-wise activation offloading for the backward pass.

Tensors saved for backward inside a group are copied to pinned host memory
when the group is committed, and copied back ahead of the group's backward.
"""
import logging
from collections import defaultdict
from typing import Any, Dict, List, Optional, Tuple

import torch

from .buffers import ReloadBufferPool

logger = logging.getLogger(__name__)


class _StreamSwitch:
    """Make `stream` the current stream inside the block, restore the old one after."""

    def __init__(self, stream: torch.cuda.Stream) -> None:
        self.stream = stream
        self._prev: Optional[torch.cuda.Stream] = None

    def __enter__(self) -> torch.cuda.Stream:
        self._prev = torch.cuda.current_stream()
        torch.cuda.set_stream(self.stream)
        return self.stream

    def __exit__(self, exc_type, exc, tb) -> bool:
        torch.cuda.set_stream(self._prev)
        return False


class GroupOffloadHandler:

    def __init__(self, min_offload_numel: int = 1 << 16, reuse_buffers: bool = True) -> None:
        self.min_offload_numel = min_offload_numel
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.pool = ReloadBufferPool() if reuse_buffers else None
        self.current_group = 0
        self.saved: Dict[int, List[Optional[torch.Tensor]]] = defaultdict(list)
        self.cpu_copies: Dict[int, List[torch.Tensor]] = {}
        self.offload_events: Dict[int, torch.cuda.Event] = {}
        self.reload_events: Dict[int, torch.cuda.Event] = {}

    # -- saved_tensors_hooks -------------------------------------------------
    def on_save(self, tensor: torch.Tensor) -> Any:
        if not tensor.is_cuda or tensor.numel() < self.min_offload_numel:
            return tensor
        group = self.saved[self.current_group]
        group.append(tensor)
        return (self.current_group, len(group) - 1)

    def on_get(self, handle: Any) -> torch.Tensor:
        if isinstance(handle, torch.Tensor):
            return handle
        gid, idx = handle
        reloaded = self.reload_events.get(gid)
        if reloaded is not None:
            torch.cuda.current_stream().wait_event(reloaded)
        tensor = self.saved[gid][idx]
        # Reloaded buffers were allocated on the H2D stream; tell the caching
        # allocator that the compute stream uses them too.
        tensor.record_stream(torch.cuda.current_stream())
        return tensor

    # -- forward -------------------------------------------------------------
    def group_commit(self) -> None:
        """Called after the forward of the current group: start its D2H copies."""
        gid = self.current_group
        tensors = self.saved[gid]
        cpu_list: List[torch.Tensor] = []
        # The group's activations were produced on the compute stream.
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        with _StreamSwitch(self.d2h_stream):
            for t in tensors:
                cpu = torch.empty(t.size(), dtype=t.dtype, device="cpu", pin_memory=True)
                cpu.copy_(t, non_blocking=True)
                cpu_list.append(cpu)
            done = torch.cuda.Event()
            done.record(self.d2h_stream)
        self.cpu_copies[gid] = cpu_list
        self.offload_events[gid] = done
        self.current_group += 1

    def release_group(self, gid: int) -> None:
        """Drop the device copies of a committed group once its D2H is queued."""
        torch.cuda.current_stream().wait_event(self.offload_events[gid])
        self.saved[gid] = [None] * len(self.saved[gid])

    # -- backward ------------------------------------------------------------
    def group_prefetch(self, gid: int) -> None:
        """Start reloading group `gid` so it is resident when its backward runs."""
        cpu_list = self.cpu_copies.pop(gid, None)
        if cpu_list is None:
            return
        reloaded: List[Optional[torch.Tensor]] = []
        # The host copies must have landed before we read them back.
        self.h2d_stream.wait_event(self.offload_events[gid])
        # Pooled buffers may still be read by the backward of the previous group.
        self.h2d_stream.wait_stream(torch.cuda.current_stream())
        with _StreamSwitch(self.h2d_stream):
            for cpu in cpu_list:
                if self.pool is not None:
                    dst = self.pool.acquire(cpu.shape, cpu.dtype)
                else:
                    dst = torch.empty(cpu.shape, dtype=cpu.dtype, device="cuda")
                dst.copy_(cpu, non_blocking=True)
                reloaded.append(dst)
            ready = torch.cuda.Event()
            ready.record(self.h2d_stream)
        self.saved[gid] = reloaded
        self.reload_events[gid] = ready

    def group_done(self, gid: int) -> None:
        """Backward of `gid` is queued: hand its buffers back for the next group."""
        if self.pool is not None:
            for buf in self.saved.pop(gid, []):
                if buf is not None:
                    self.pool.release(buf)
        self.reload_events.pop(gid, None)
        self.offload_events.pop(gid, None)


def get_cpu_offload_context(handler: GroupOffloadHandler) -> torch.autograd.graph.saved_tensors_hooks:
    """Context under which saved activations go through `handler`."""
    logger.debug("activation offload enabled (min numel %d)", handler.min_offload_numel)
    return torch.autograd.graph.saved_tensors_hooks(handler.on_save, handler.on_get)
