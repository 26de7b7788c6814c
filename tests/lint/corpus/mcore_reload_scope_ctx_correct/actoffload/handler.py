"""Group-wise activation offload in the shape of Megatron's CPU offloading context: each
transformer layer is a group; its saved activations go to pinned host memory after its forward
and come back before its backward into persistent device buffers keyed by activation name, which
every layer shares (all layers save the same shapes).
"""

import torch

from .config import ActivationOffloadConfig


class GroupOffloadHandler:
    def __init__(self, config: ActivationOffloadConfig):
        self.config = config
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.host_copies = {}      # (group, name) -> pinned host tensor
        self.reload_buffers = {}   # name -> device tensor, shared by all groups
        self.group_tags = [[] for _ in range(config.num_groups)]
        self.offload_done = [torch.cuda.Event() for _ in range(config.num_groups)]

    def offload_group(self, group_idx, tensors):
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.d2h_stream):
            for name, tensor in tensors.items():
                tag = (group_idx, name)
                host = self.host_copies.get(tag)
                if host is None:
                    host = torch.empty(tensor.shape, dtype=tensor.dtype, pin_memory=True)
                    self.host_copies[tag] = host
                host.copy_(tensor, non_blocking=True)
                tensor.record_stream(self.d2h_stream)
                self.group_tags[group_idx].append(tag)
        self.offload_done[group_idx].record(self.d2h_stream)

    def _reload_buffer(self, name, like):
        buf = self.reload_buffers.get(name) if self.config.reuse_reload_buffers else None
        if buf is None:
            buf = torch.empty(like.shape, dtype=like.dtype, device="cuda")
            self.reload_buffers[name] = buf
        return buf

    def reload_group(self, group_idx):
        self.h2d_stream.wait_event(self.offload_done[group_idx])
        reloaded = {}
        with torch.cuda.stream(self.h2d_stream):
            for tag in self.group_tags[group_idx]:
                host = self.host_copies[tag]
                buf = self._reload_buffer(tag[1], host)
                buf.copy_(host, non_blocking=True)
                reloaded[tag[1]] = buf
        self.group_tags[group_idx] = []
        return reloaded


class ReloadScope:
    """Entered around a group's backward: makes the reload wait for the backward kernels already
    queued (they may still read the shared reload buffers), reloads the group, hands its tensors
    to the caller, and makes the compute stream wait for the reload."""

    def __init__(self, handler: GroupOffloadHandler, group_idx):
        self.handler = handler
        self.group_idx = group_idx
        self.tensors = None

    def __enter__(self):
        self.handler.h2d_stream.wait_stream(torch.cuda.current_stream())
        self.tensors = self.handler.reload_group(self.group_idx)
        torch.cuda.current_stream().wait_stream(self.handler.h2d_stream)
        return self.tensors

    def __exit__(self, exc_type, exc, tb):
        self.tensors = None
        return False
