"""The process-wide activation-offload manager in the shape of Megatron's PipelineOffloadManager:
a singleton that owns the device-to-host and host-to-device streams and the queue of per-chunk
handlers, and installs saved-tensor hooks while a chunk's forward runs."""

from collections import deque

import torch


class OffloadManager:
    _instance = None

    @classmethod
    def get_instance(cls):
        if cls._instance is None:
            cls._instance = OffloadManager()
        return cls._instance

    def __init__(self):
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self._queue = deque()
        self._forward_chunk = None
        self._backward_chunk = None

    def push(self, handler):
        self._queue.append(handler)
        self._forward_chunk = handler

    def pop(self):
        self._backward_chunk = self._queue.popleft()
        return self._backward_chunk

    def forward_chunk(self):
        return self._forward_chunk

    def backward_chunk(self):
        return self._backward_chunk

    def __enter__(self):
        torch._C._autograd._push_saved_tensors_default_hooks(self.on_save, self.on_load)
        return self

    def __exit__(self, *exc):
        torch._C._autograd._pop_saved_tensors_default_hooks()

    def on_save(self, tensor):
        return self.forward_chunk().tensor_push(tensor)

    def on_load(self, tag):
        return self.backward_chunk().tensor_pop(tag)
