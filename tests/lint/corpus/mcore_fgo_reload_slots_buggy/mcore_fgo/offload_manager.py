"""Singleton that owns the copy streams, the pinned host pool and the device reload slots."""
from collections import deque

import torch
from torch.autograd.graph import saved_tensors_hooks


class ReloadSlots:
    """Two device buffers per (group name, tensor index); layer parity picks the buffer."""

    def __init__(self, device="cuda"):
        self.device = torch.device(device)
        self._slots = {}

    def reserve(self, name, index, shape, dtype):
        key = (name, index)
        if key not in self._slots:
            self._slots[key] = [torch.empty(shape, dtype=dtype, device=self.device) for _ in range(2)]

    def get(self, name, index, parity):
        return self._slots[(name, index)][parity]


class PipelineOffloadManager:
    OFFLOAD_MGR = None

    @classmethod
    def get_instance(cls):
        if cls.OFFLOAD_MGR is None:
            cls.OFFLOAD_MGR = PipelineOffloadManager()
        return cls.OFFLOAD_MGR

    def __init__(self):
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.reload_slots = ReloadSlots()
        self._queue = deque()
        self._cur_forward_chunk = None
        self._cur_backward_chunk = None
        self._saved_tensors_hooks = saved_tensors_hooks(self.on_save_for_backward, self.on_get_saved_tensor)

    def push_chunk(self, chunk):
        self._cur_forward_chunk = chunk
        self._queue.append(chunk)

    def pop_backward_chunk(self):
        self._cur_backward_chunk = self._queue.pop()
        self._cur_backward_chunk.pre_reload_last_group()
        return self._cur_backward_chunk

    def __enter__(self):
        self._saved_tensors_hooks.__enter__()

    def __exit__(self, *args):
        self._saved_tensors_hooks.__exit__(*args)

    def on_save_for_backward(self, tensor):
        return self._cur_forward_chunk.tensor_push(tensor)

    def on_get_saved_tensor(self, tag):
        return self._cur_backward_chunk.tensor_pop(tag)
