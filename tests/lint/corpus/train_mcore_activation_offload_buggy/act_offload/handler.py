"""Group-wise activation offload: whole layers go to pinned memory, and come back into
two device slots that alternate between consecutive groups during backward."""

import torch

from .streams import OffloadStreams


class GroupOffloadHandler:
    def __init__(self, num_offload_groups, slot_numel, dtype=torch.bfloat16):
        self.num_offload_groups = num_offload_groups
        streams = OffloadStreams.get()
        self.d2h_stream = streams.d2h_stream
        self.h2d_stream = streams.h2d_stream
        self.reload_slots = [torch.empty(slot_numel, dtype=dtype, device="cuda") for _ in range(2)]
        self.tensor_tag_to_state = {}
        self.reload_events = {}
        self.current_group = 0
        self.tensor_count = 0

    def tensor_push(self, tensor):
        tag = (self.current_group, self.tensor_count)
        self.tensor_count += 1
        self.tensor_tag_to_state[tag] = tensor
        return tag

    def tensor_pop(self, tag):
        event = self.reload_events.pop(tag[0], None)
        if event is not None:
            torch.cuda.current_stream().wait_event(event)
        return self.tensor_tag_to_state.pop(tag)

    @staticmethod
    def offload(src):
        cpu_backup = torch.empty(src.size(), dtype=src.dtype, device="cpu", pin_memory=True)
        # expect: KVG001
        cpu_backup.copy_(src, non_blocking=True)
        return src.device, cpu_backup

    def bulk_offload_group(self, group):
        with torch.cuda.stream(self.d2h_stream):
            for tag, state in self.tensor_tag_to_state.items():
                if tag[0] == group and torch.is_tensor(state):
                    self.tensor_tag_to_state[tag] = self.offload(state)
                    state.record_stream(self.d2h_stream)

    def bulk_reload_group(self, group):
        slot = self.reload_slots[group % 2]
        offset = 0
        with torch.cuda.stream(self.h2d_stream):
            for tag, state in self.tensor_tag_to_state.items():
                if tag[0] != group or torch.is_tensor(state):
                    continue
                _, cpu_backup = state
                numel = cpu_backup.numel()
                dst = slot.narrow(0, offset, numel).view(cpu_backup.shape)
                # expect: KVG004
                dst.copy_(cpu_backup, non_blocking=True)
                self.tensor_tag_to_state[tag] = dst
                offset += numel
            event = torch.cuda.Event()
            event.record()
        self.reload_events[group] = event

    def on_group_commit_forward(self):
        group = self.current_group
        if group < self.num_offload_groups:
            self.bulk_offload_group(group)
        self.current_group += 1
        self.tensor_count = 0

    def on_group_commit_backward(self):
        self.current_group -= 1
        group = self.current_group
        if group >= self.num_offload_groups:
            return
        compute = torch.cuda.current_stream()
        compute.wait_stream(self.d2h_stream)
        if group not in self.reload_events:
            self.bulk_reload_group(group)
        if group > 0:
            self.bulk_reload_group(group - 1)
