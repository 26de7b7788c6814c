"""One offload group: the tensors a module saved for backward, with the events that order the
streams moving them."""

import torch


class OffloadTensorGroup:
    def __init__(self, name):
        self._name = name
        self._tensors = {}
        self._ready_event = torch.cuda.Event()
        self._offload_event = torch.cuda.Event()
        self._reload_event = torch.cuda.Event()

    def push_tensor(self, tag, tensor):
        self._tensors[tag] = tensor

    def pop_tensor(self, tag):
        return self._tensors.pop(tag)

    def record_ready(self):
        """On the compute stream, once the group's forward is queued."""
        self._ready_event.record()

    def wait_ready(self, stream=None):
        self._ready_event.wait(stream)

    def record_offload_event(self, stream):
        self._offload_event.record(stream)

    def wait_offload_event(self, stream):
        self._offload_event.wait(stream)

    def record_reload_event(self, stream):
        self._reload_event.record(stream)

    def wait_reload_event(self, stream):
        self._reload_event.wait(stream)
