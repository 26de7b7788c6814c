# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
from __future__ import annotations

import contextlib
from typing import Any, Dict, Tuple

import torch
from torch import nn
from torch.autograd.graph import saved_tensors_hooks

from ._stream_ctx import OffloadStreamContext


def _num_bytes(t: torch.Tensor) -> int:
    return t.element_size() * t.nelement()


class OffloadActivations(saved_tensors_hooks):
    """Context manager that offloads saved activations to pinned CPU memory
    during forward and brings them back to the GPU for backward.

    Args:
        use_pin_memory: allocate host copies in page-locked memory.
        use_streams: overlap the transfers with compute on a side stream.
        min_offload_size: tensors smaller than this many bytes stay on GPU.
    """

    def __init__(
        self,
        use_pin_memory: bool = True,
        use_streams: bool = True,
        min_offload_size: int = 1024,
    ) -> None:
        self.use_pin_memory = use_pin_memory
        self.min_tensor_size_bytes = min_offload_size
        self.ctx = OffloadStreamContext.create() if use_streams else None
        self.tracker: Dict[int, Tuple[torch.Tensor, bool]] = {}
        self.tensor_id = 0

        def pack_tensor(activation: torch.Tensor) -> int:
            tensor_id = self.tensor_id
            self.tensor_id += 1
            if (
                not activation.is_cuda
                or isinstance(activation, nn.Parameter)
                or _num_bytes(activation) < self.min_tensor_size_bytes
            ):
                self.tracker[tensor_id] = (activation, False)
                return tensor_id

            cpu_tensor = torch.empty_like(
                activation, device="cpu", pin_memory=self.use_pin_memory
            )
            if self.ctx is None:
                cpu_tensor.copy_(activation)
            else:
                ctx = self.ctx
                ctx.drain_fwd_stash()
                with torch.cuda.stream(ctx.offload):
                    # the activation was just produced on the compute stream
                    ctx.offload.wait_stream(ctx.compute)
                    cpu_tensor.copy_(activation, non_blocking=True)
                    ctx.fwd_stash[tensor_id] = (activation, ctx.offload.record_event())
            self.tracker[tensor_id] = (cpu_tensor, True)
            return tensor_id

        def unpack_tensor(unpack_tensor_id: int) -> torch.Tensor:
            maybe_gpu_tensor, modified = self.tracker.pop(unpack_tensor_id)
            if not modified:
                return maybe_gpu_tensor
            if self.ctx is None:
                return maybe_gpu_tensor.to("cuda", non_blocking=False)
            ctx = self.ctx
            stashed = ctx.fwd_stash.pop(unpack_tensor_id, None)
            if stashed is not None:
                ctx.compute.wait_event(stashed[1])
            with torch.cuda.stream(ctx.offload):
                gpu_tensor = maybe_gpu_tensor.to(ctx.device, non_blocking=True)
                brought_back = ctx.offload.record_event()
            ctx.compute.wait_event(brought_back)
            gpu_tensor.record_stream(ctx.compute)
            return gpu_tensor

        super().__init__(pack_tensor, unpack_tensor)


class NoOpManager(saved_tensors_hooks):
    """Disables offloading for the activations saved inside this context."""

    def __init__(self) -> None:
        def noop(tensor: Any) -> Any:
            return tensor

        super().__init__(noop, noop)


def get_act_offloading_ctx_manager(model: nn.Module, enable_activation_offloading: bool):
    if not enable_activation_offloading:
        return contextlib.nullcontext()
    activations_handling_ctx = OffloadActivations()
    # The output projection is consumed immediately by the loss; keep it on GPU.
    output_head = getattr(model, "output", None)
    if isinstance(output_head, nn.Module):
        noop_ctx = NoOpManager()
        output_head.register_forward_pre_hook(lambda *args: noop_ctx.__enter__())
        output_head.register_forward_hook(
            lambda *args: noop_ctx.__exit__(None, None, None), always_call=True
        )
    return activations_handling_ctx
