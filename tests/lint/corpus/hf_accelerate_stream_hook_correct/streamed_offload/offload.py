"""Attaching the hooks, in the shape of accelerate's ``cpu_offload``: for every leaf module the
parameters are copied into pinned host tensors (``.cpu().pin_memory()``) in a loop, its buffers
likewise, and each module gets its own hook."""

from accelerate.hooks import add_hook_to_module

from streamed_offload.hooks import StreamedOffloadHook


def cpu_offload_with_stream(model, execution_device="cuda"):
    for module in model.modules():
        if next(module.children(), None) is not None:
            continue
        weights_map = {}
        for name, param in module.named_parameters(recurse=False):
            weights_map[name] = param.detach().cpu().pin_memory()
        buffers_map = {name: buf.detach().cpu().pin_memory() for name, buf in module.named_buffers(recurse=False)}
        hook = StreamedOffloadHook(execution_device, weights_map, buffers_map)
        add_hook_to_module(module, hook)
    return model
