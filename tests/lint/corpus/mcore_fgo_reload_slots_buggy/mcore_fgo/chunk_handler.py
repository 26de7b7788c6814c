"""Per-microbatch handler: groups of saved activations go to pinned memory after their
module's forward and come back, one group ahead, during backward."""
import torch

from .offload_manager import PipelineOffloadManager


class OffloadTensorGroup:
    def __init__(self, name, parity):
        self._name = name
        self.parity = parity
        self._tensors = {}
        self._offload_event = torch.cuda.Event()
        self._reload_event = torch.cuda.Event()

    def push_tensor(self, tag, tensor):
        self._tensors[tag] = tensor

    def pop_tensor(self, tag):
        return self._tensors.pop(tag)


class ChunkOffloadHandler:
    def __init__(self, min_offloaded_tensor_size=1 << 20):
        mgr = PipelineOffloadManager.get_instance()
        self.d2h_stream = mgr.d2h_stream
        self.h2d_stream = mgr.h2d_stream
        self.reload_slots = mgr.reload_slots
        self.min_offloaded_tensor_size = min_offloaded_tensor_size
        self.offload_groups = []
        self._groups_to_reload = []
        self._reloading = {}

    def tensor_push(self, tensor):
        if tensor.device.type != "cuda" or tensor.numel() < self.min_offloaded_tensor_size:
            return tensor
        group = self.offload_groups[-1]
        tag = (len(self.offload_groups), len(group._tensors))
        group.push_tensor(tag, tensor)
        return tag

    def tensor_pop(self, tag):
        if isinstance(tag, torch.Tensor):
            return tag
        return self.offload_groups[tag[0] - 1].pop_tensor(tag)

    # forward
    def on_group_start_forward(self, name):
        self.offload_groups.append(OffloadTensorGroup(name, parity=len(self.offload_groups) % 2))

    def on_group_commit_forward(self):
        group = self.offload_groups[-1]
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.d2h_stream):
            for index, (tag, tensor) in enumerate(list(group._tensors.items())):
                self.reload_slots.reserve(group._name, index, tensor.shape, tensor.dtype)
                cpu_backup = torch.empty(tensor.shape, dtype=tensor.dtype, pin_memory=True)
                cpu_backup.copy_(tensor, non_blocking=True)
                tensor.record_stream(self.d2h_stream)
                group.push_tensor(tag, (index, cpu_backup))
            group._offload_event.record(self.d2h_stream)
        self._groups_to_reload.append(group)

    # backward
    def pre_reload_last_group(self):
        if self._groups_to_reload:
            self.bulk_reload_group(self._groups_to_reload.pop())

    def bulk_reload_group(self, group):
        with torch.cuda.stream(self.h2d_stream):
            # the pinned copy must be complete before it is read back
            self.h2d_stream.wait_event(group._offload_event)
            for tag, state in list(group._tensors.items()):
                if isinstance(state, tuple):
                    index, cpu_backup = state
                    slot = self.reload_slots.get(group._name, index, group.parity)
                    # expect: KVG004
                    slot.copy_(cpu_backup, non_blocking=True)
                    group.push_tensor(tag, slot)
            group._reload_event.record(self.h2d_stream)
        self._reloading[id(group)] = group

    def on_group_commit_backward(self):
        # this group's backward is about to run: its activations must be back
        group = self.offload_groups[-1]
        if id(group) in self._reloading:
            torch.cuda.current_stream().wait_event(group._reload_event)
            del self._reloading[id(group)]

    def on_group_start_backward(self):
        # this group's backward has been queued: bring back the next group down
        self.offload_groups.pop()
        if self._groups_to_reload:
            self.bulk_reload_group(self._groups_to_reload.pop())
