"""Offload handlers: a group handler that offloads a layer's activations when the layer
commits, and an eager variant that ships large activations out as soon as autograd saves them
so that their device memory can be reused during the rest of the layer."""

from .base import OffloadHandlerBase


class GroupOffloadHandler(OffloadHandlerBase):
    def __init__(self, d2h_stream, h2d_stream):
        super().__init__(d2h_stream, h2d_stream)
        self.current_group = 0
        self._count_in_group = 0

    def tensor_push(self, tensor):
        tag = (self.current_group, self._count_in_group)
        self._count_in_group += 1
        self._tensor_tag_to_state[tag] = tensor
        return tag

    def on_group_commit_forward(self):
        self.fence_d2h()
        for tag, state in list(self._tensor_tag_to_state.items()):
            if tag[0] == self.current_group and not isinstance(state, tuple) and self.needs_offload(state):
                self._tensor_tag_to_state[tag] = self.offload(state)
        self.current_group += 1
        self._count_in_group = 0


class EagerOffloadHandler(GroupOffloadHandler):
    """Offload tensors above ``eager_threshold`` elements the moment they are saved."""

    def __init__(self, d2h_stream, h2d_stream, eager_threshold):
        super().__init__(d2h_stream, h2d_stream)
        self.eager_threshold = eager_threshold

    def tensor_push(self, tensor):
        tag = super().tensor_push(tensor)
        if tensor.numel() >= self.eager_threshold and self.needs_offload(tensor):
            # the kernel that produced the tensor was only queued: order the copy behind it
            self.fence_d2h()
            self._tensor_tag_to_state[tag] = self.offload(tensor)
        return tag
