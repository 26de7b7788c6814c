"""Process-wide scratch buffers, as megatron.core.parallel_state's ``GlobalMemoryBuffer``."""

import operator
from functools import reduce

import torch


class GlobalMemoryBuffer:
    """Named device buffers reused across calls so that hot paths do not go to the allocator."""

    def __init__(self):
        self.buffer = {}

    def get_tensor(self, tensor_shape, dtype, name):
        required_len = reduce(operator.mul, tensor_shape, 1)
        if self.buffer.get((name, dtype), None) is None or self.buffer[(name, dtype)].numel() < required_len:
            self.buffer[(name, dtype)] = torch.empty(
                required_len, dtype=dtype, device=torch.cuda.current_device(), requires_grad=False)
        return self.buffer[(name, dtype)][0:required_len].view(*tensor_shape)


_GLOBAL_MEMORY_BUFFER = None


def _set_global_memory_buffer():
    global _GLOBAL_MEMORY_BUFFER
    assert _GLOBAL_MEMORY_BUFFER is None, "global memory buffer is already initialized"
    _GLOBAL_MEMORY_BUFFER = GlobalMemoryBuffer()


def get_global_memory_buffer() -> GlobalMemoryBuffer:
    assert _GLOBAL_MEMORY_BUFFER is not None, "global memory buffer is not initialized"
    return _GLOBAL_MEMORY_BUFFER
