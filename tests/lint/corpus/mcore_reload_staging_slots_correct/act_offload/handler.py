from dataclasses import dataclass

import torch

from .staging import StagingPool


@dataclass
class HostCopy:
    host: torch.Tensor
    index: int


class AsyncGroupOffloadHandler:
    def __init__(self, num_offload_groups, min_numel=1 << 16):
        self.num_offload_groups = num_offload_groups
        self.min_numel = min_numel
        self.current_group = 0
        self.tensor_count = 0
        self.tag_to_state = {}  # (group, index) -> tensor on device | HostCopy
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.staging = StagingPool()
        self.offloaded = [torch.cuda.Event() for _ in range(num_offload_groups)]
        self.reloaded = [torch.cuda.Event() for _ in range(num_offload_groups)]
        self.bwd_start = [torch.cuda.Event() for _ in range(num_offload_groups)]

    # saved-tensors hooks ---------------------------------------------------------------
    def tensor_push(self, tensor):
        tag = (self.current_group, self.tensor_count)
        self.tensor_count += 1
        self.tag_to_state[tag] = tensor
        return tag

    def tensor_pop(self, tag):
        return self.tag_to_state.pop(tag)

    # forward ---------------------------------------------------------------------------
    def on_group_commit_forward(self):
        group = self.current_group
        if group < self.num_offload_groups:
            self.d2h_stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.d2h_stream):
                for (g, index), tensor in list(self.tag_to_state.items()):
                    if g != group or tensor.numel() < self.min_numel:
                        continue
                    host = torch.empty(tensor.shape, dtype=tensor.dtype, pin_memory=True)
                    host.copy_(tensor, non_blocking=True)
                    tensor.record_stream(self.d2h_stream)
                    self.tag_to_state[(g, index)] = HostCopy(host, index)
                self.offloaded[group].record(self.d2h_stream)
        self.current_group += 1
        self.tensor_count = 0

    # backward --------------------------------------------------------------------------
    def _reload_group(self, group):
        # the host copies of this group must have landed
        self.h2d_stream.wait_event(self.offloaded[group])
        with torch.cuda.stream(self.h2d_stream):
            for (g, index), state in list(self.tag_to_state.items()):
                if g != group or not isinstance(state, HostCopy):
                    continue
                buf = self.staging.get(group, index, state.host.shape, state.host.dtype)
                buf.copy_(state.host, non_blocking=True)
                self.tag_to_state[(g, index)] = buf
            self.reloaded[group].record(self.h2d_stream)

    def on_group_commit_backward(self):
        self.current_group -= 1
        group = self.current_group
        if group - 1 >= 0 and group - 1 < self.num_offload_groups:
            # the staging slot of group - 1 was last read by the backward of group + 1,
            # which is queued on the compute stream just ahead of this point
            torch.cuda.current_stream().record_event(self.bwd_start[group - 1])
            self.h2d_stream.wait_event(self.bwd_start[group - 1])
            self._reload_group(group - 1)
        if group < self.num_offload_groups:
            torch.cuda.current_stream().wait_event(self.reloaded[group])
