"""Activation checkpointing with the checkpointed inputs kept in host memory (CPU_CHECKPOINT)."""

import torch
from deepspeed.accelerator import get_accelerator

from .buffers import PinnedActivationPool

SYNCHRONIZE = False
transport_stream = None
cpu_pool = None


def configure(max_numel, num_slots=16, synchronize=False):
    global transport_stream, cpu_pool, SYNCHRONIZE
    transport_stream = get_accelerator().Stream()
    cpu_pool = PinnedActivationPool(max_numel, num_slots)
    SYNCHRONIZE = synchronize


def offload_activations(args):
    """Copy floating-point inputs to pinned slots on the transport stream."""
    saved, ids = [], []
    transport_stream.wait_stream(get_accelerator().current_stream())
    with get_accelerator().stream(transport_stream):
        for arg in args:
            if not torch.is_tensor(arg) or not arg.is_floating_point():
                saved.append(arg)
                continue
            idx, host = cpu_pool.acquire(arg)
            host.copy_(arg.detach(), non_blocking=True)
            arg.record_stream(transport_stream)
            saved.append(host)
            ids.append(idx)
    return saved, ids


def restore_activations(saved, device):
    restored = []
    for item in saved:
        if torch.is_tensor(item) and item.device.type == "cpu":
            item = item.to(device, non_blocking=True).requires_grad_(True)
        restored.append(item)
    return restored


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, run_function, *args):
        if SYNCHRONIZE:
            get_accelerator().synchronize()
        ctx.run_function = run_function
        ctx.device = get_accelerator().current_device_name()
        ctx.fwd_cuda_rng_state = get_accelerator().get_rng_state()
        with torch.no_grad():
            outputs = run_function(*args)
        ctx.saved, ctx.slot_ids = offload_activations(args)
        return outputs

    @staticmethod
    def backward(ctx, *grads):
        get_accelerator().current_stream().wait_stream(transport_stream)
        inputs = restore_activations(ctx.saved, ctx.device)
        bwd_cuda_rng_state = get_accelerator().get_rng_state()
        get_accelerator().set_rng_state(ctx.fwd_cuda_rng_state)
        with torch.enable_grad():
            outputs = ctx.run_function(*inputs)
        get_accelerator().set_rng_state(bwd_cuda_rng_state)
        if torch.is_tensor(outputs):
            outputs = (outputs,)
        torch.autograd.backward(outputs, grads)
        cpu_pool.release(ctx.slot_ids)
        grads_in = tuple(t.grad if torch.is_tensor(t) and t.requires_grad else None for t in inputs)
        return (None,) + grads_in


def checkpoint(function, *args):
    return CheckpointFunction.apply(function, *args)
