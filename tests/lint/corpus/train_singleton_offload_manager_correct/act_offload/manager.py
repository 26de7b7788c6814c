"""Activation offloading in the shape of Megatron's fine-grained offload: one process-wide
manager, created on first use through a classmethod, owns the device-to-host stream and hands it
out through a property; each chunk handler copies that stream into a field when it is made.
Both commits order the handler's stream behind the compute stream that wrote the saved
activations before the offload."""

import torch


class OffloadManager:
    INSTANCE = None

    @classmethod
    def get(cls):
        if cls.INSTANCE is None:
            cls.INSTANCE = OffloadManager()
        return cls.INSTANCE

    def __init__(self):
        self._d2h = torch.cuda.Stream()

    @property
    def d2h_stream(self):
        return self._d2h


class ChunkHandler:
    def __init__(self):
        self.d2h_stream = OffloadManager.get().d2h_stream
        self.saved = []
        self.offloaded = []

    def offload_one(self, tensor):
        host = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu", pin_memory=True)
        host.copy_(tensor, non_blocking=True)
        return host

    def offload_saved(self):
        with torch.cuda.stream(self.d2h_stream):
            for tensor in self.saved:
                self.offloaded.append(self.offload_one(tensor))
                tensor.record_stream(self.d2h_stream)
        self.saved = []

    def commit_group(self):
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        self.offload_saved()

    def commit_group_from_hook(self):
        compute = torch.cuda.current_stream()
        self.d2h_stream.wait_stream(compute)
        self.offload_saved()
