"""Bulk activation offload for one layer group: every saved tensor of the group goes to one
pinned host arena with a single batched copy, and comes back the same way before backward."""

import torch

from .batch_copy import batch_copy


class GroupArena:
    def __init__(self, tensors):
        self.shapes = [t.shape for t in tensors]
        self.dtypes = [t.dtype for t in tensors]
        self.nbytes = [t.numel() * t.element_size() for t in tensors]
        self.host = torch.empty(sum(self.nbytes), dtype=torch.uint8, pin_memory=True)
        self.offsets = [0]
        for n in self.nbytes[:-1]:
            self.offsets.append(self.offsets[-1] + n)

    def host_ptrs(self):
        base = self.host.data_ptr()
        return [base + off for off in self.offsets]


class BulkGroupOffloader:
    def __init__(self):
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.arenas = {}
        self.offloaded = {}

    def offload(self, group_id, tensors):
        arena = GroupArena(tensors)
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        batch_copy(arena.host_ptrs(), [t.data_ptr() for t in tensors], arena.nbytes, self.d2h_stream)
        for t in tensors:
            t.record_stream(self.d2h_stream)
        done = torch.cuda.Event()
        done.record(self.d2h_stream)
        self.arenas[group_id] = arena
        self.offloaded[group_id] = done

    def reload(self, group_id):
        arena = self.arenas.pop(group_id)
        done = self.offloaded.pop(group_id)
        outs = [torch.empty(s, dtype=d, device="cuda") for s, d in zip(arena.shapes, arena.dtypes)]
        # the caching allocator made `outs` for the compute stream, whose queued kernels may
        # still use that memory; and the arena must have been filled
        self.h2d_stream.wait_stream(torch.cuda.current_stream())
        self.h2d_stream.wait_event(done)
        # the arena is filled by the offload copy, which the wait above orders the reload behind
        batch_copy([t.data_ptr() for t in outs], arena.host_ptrs(), arena.nbytes, self.h2d_stream)
        torch.cuda.current_stream().wait_stream(self.h2d_stream)
        return outs
