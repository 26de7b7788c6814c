"""Installs the handler's saved-tensor hooks around a transformer layer's forward."""

import torch

from .handlers import EagerOffloadHandler, GroupOffloadHandler


class OffloadManager:
    _instance = None

    @classmethod
    def get_instance(cls):
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def __init__(self):
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.handler = None
        self._hooks = None

    def configure(self, eager_threshold=None):
        if eager_threshold is None:
            self.handler = GroupOffloadHandler(self.d2h_stream, self.h2d_stream)
        else:
            self.handler = EagerOffloadHandler(self.d2h_stream, self.h2d_stream, eager_threshold)
        return self.handler

    def __enter__(self):
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self.handler.tensor_push, self.handler.tensor_pop)
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc):
        self._hooks.__exit__(*exc)
        self._hooks = None


def offload_group_commit(output):
    """Called after each layer's forward: offload what the group handler held back."""
    OffloadManager.get_instance().handler.on_group_commit_forward()
    return output


def forward_with_offload(layers, hidden_states, eager_threshold=None):
    manager = OffloadManager.get_instance()
    manager.configure(eager_threshold)
    for layer in layers:
        with manager:
            hidden_states = layer(hidden_states)
        hidden_states = offload_group_commit(hidden_states)
    return hidden_states
