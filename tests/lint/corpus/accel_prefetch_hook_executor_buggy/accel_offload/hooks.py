"""Hooks in the shape of accelerate's ``ModelHook`` / ``AlignDevicesHook``: each decoder block's
weights live in pinned host memory and are streamed into one of two device slots just before
the block runs."""

import functools

import torch


class ModelHook:
    no_grad = False

    def init_hook(self, module):
        return module

    def pre_forward(self, module, *args, **kwargs):
        return args, kwargs

    def post_forward(self, module, output):
        return output

    def detach_hook(self, module):
        return module


def add_hook_to_module(module: torch.nn.Module, hook: ModelHook):
    old_forward = module.forward
    module._hf_hook = hook
    module._old_forward = old_forward
    module = hook.init_hook(module)

    @functools.wraps(old_forward)
    def new_forward(*args, **kwargs):
        args, kwargs = module._hf_hook.pre_forward(module, *args, **kwargs)
        if module._hf_hook.no_grad:
            with torch.no_grad():
                output = module._old_forward(*args, **kwargs)
        else:
            output = module._old_forward(*args, **kwargs)
        return module._hf_hook.post_forward(module, output)

    module.forward = new_forward
    return module


def send_to_device(obj, device):
    if isinstance(obj, torch.Tensor):
        return obj.to(device, non_blocking=True)
    if isinstance(obj, (list, tuple)):
        return type(obj)(send_to_device(o, device) for o in obj)
    if isinstance(obj, dict):
        return {k: send_to_device(v, device) for k, v in obj.items()}
    return obj


class PrefetchOffloadHook(ModelHook):
    """Binds block ``block_idx`` to its prefetched slot; once it is launched, asks for the next block."""

    def __init__(self, streamer, block_idx: int, execution_device: torch.device):
        self.streamer = streamer
        self.block_idx = block_idx
        self.execution_device = execution_device

    def init_hook(self, module):
        self.streamer.register_block(self.block_idx, module)
        return module

    def pre_forward(self, module, *args, **kwargs):
        self.streamer.wait_for_block(self.block_idx)
        self.streamer.bind_block(self.block_idx, module)
        return send_to_device(args, self.execution_device), send_to_device(kwargs, self.execution_device)

    def post_forward(self, module, output):
        # the block's kernels are queued: its slot can take the block after next
        self.streamer.block_done(self.block_idx)
        self.streamer.schedule_prefetch(self.streamer.next_block(self.block_idx))
        return output
