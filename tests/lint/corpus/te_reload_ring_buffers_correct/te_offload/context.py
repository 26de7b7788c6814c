"""The user-facing context: ``with ctx: x = layer(x)`` then ``x = sync(x)``."""

import contextlib

from torch.autograd.graph import saved_tensors_hooks

from .synchronizer import OffloadSynchronizer


class CpuOffloadContext(contextlib.ContextDecorator):
    def __init__(self, synchronizer: OffloadSynchronizer):
        self.synchronizer = synchronizer
        self.current_layer = None
        self._hooks = None

    def __enter__(self):
        self.current_layer = self.synchronizer.fwd_step()
        self._hooks = saved_tensors_hooks(self.synchronizer.push_tensor, self.synchronizer.pop_tensor)
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc):
        self._hooks.__exit__(*exc)
        return False

    def synchronization_function(self, tensor):
        layer = self.current_layer
        synchronizer = self.synchronizer

        def hook(_grad_outputs):
            synchronizer.bwd_step(layer)

        tensor.grad_fn.register_prehook(hook)
        return tensor


def get_cpu_offload_context(num_layers, reload_numel, dtype):
    ctx = CpuOffloadContext(OffloadSynchronizer(num_layers, reload_numel, dtype=dtype))
    return ctx, ctx.synchronization_function
