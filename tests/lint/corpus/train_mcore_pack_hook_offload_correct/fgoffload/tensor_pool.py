"""Reusable device buffers for reloaded activations, keyed by shape and dtype."""

from collections import defaultdict

import torch


class TensorPool:
    def __init__(self):
        self._free = defaultdict(list)

    def acquire(self, shape, dtype):
        key = (tuple(shape), dtype)
        if self._free[key]:
            return self._free[key].pop()
        return torch.empty(shape, dtype=dtype, device=torch.cuda.current_device())

    def release(self, tensor):
        self._free[(tuple(tensor.shape), tensor.dtype)].append(tensor)
