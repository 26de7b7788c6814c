from contextlib import nullcontext
from typing import Any

import torch

from .batched_copy import memcpy_d2h_batch_async

SMALL_TENSOR_BYTES = 64 * 1024
STAGING_ALIGN = 256


class OffloadHandler:
    """A base class for CPU offload-handler."""

    def tensor_push(self, tensor: torch.Tensor, **kwargs) -> Any:
        raise NotImplementedError

    def tensor_pop(self, tensor_tag: Any, **kwargs):
        raise NotImplementedError

    @staticmethod
    def offload(src_tensor, pin_memory=True):
        cpu_backup = torch.empty(src_tensor.size(), dtype=src_tensor.dtype, layout=src_tensor.layout,
                                 device="cpu", pin_memory=pin_memory)
        cpu_backup.copy_(src_tensor, non_blocking=pin_memory)
        return (src_tensor.device, cpu_backup)

    @staticmethod
    def reload(state, non_blocking=None):
        dev, cpu_backup = state
        if non_blocking is None:
            non_blocking = cpu_backup.is_pinned()
        return cpu_backup.to(dev, non_blocking=non_blocking)


class AsyncDoubleBufferGroupOffloadHandler(OffloadHandler):
    """Offloads the saved activations of the first ``num_offload_group`` layer groups
    on a D2H stream and prefetches them back on an H2D stream during backward."""

    def __init__(self, num_offload_group, num_model_group, tensor_need_offloading_checker=(lambda t: True)):
        self.num_offload_group = num_offload_group
        self.num_model_group = num_model_group
        self.tensor_need_offloading_checker = tensor_need_offloading_checker
        self.tensor_tag_to_state = {}
        self.current_group = 0
        self.tensor_count_current_group = 0
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self.offload_events = {}
        self.reload_events = {}
        self.staging = {}

    def tensor_push(self, tensor, **kwargs):
        tensor_tag = (self.current_group, self.tensor_count_current_group)
        self.tensor_count_current_group += 1
        self.tensor_tag_to_state[tensor_tag] = tensor
        return tensor_tag

    def tensor_pop(self, tensor_tag, **kwargs):
        group = tensor_tag[0]
        event = self.reload_events.get(group)
        if event is not None:
            torch.cuda.current_stream().wait_event(event)
        state = self.tensor_tag_to_state.pop(tensor_tag)
        if isinstance(state, tuple):
            # group was never prefetched: reload it on the compute stream
            offloaded = self.offload_events.get(group)
            if offloaded is not None:
                torch.cuda.current_stream().wait_event(offloaded)
            state = self.reload(state, non_blocking=True)
        return state

    def bulk_offload_group(self, group_to_offload):
        small = []
        # activations of this group were produced on the compute stream
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.d2h_stream):
            for tensor_tag, state in self.tensor_tag_to_state.items():
                if tensor_tag[0] != group_to_offload or not self.tensor_need_offloading_checker(state):
                    continue
                state.record_stream(self.d2h_stream)
                if state.numel() * state.element_size() <= SMALL_TENSOR_BYTES:
                    small.append((tensor_tag, state))
                else:
                    self.tensor_tag_to_state[tensor_tag] = self.offload(state)
            if small:
                self._offload_small(group_to_offload, small)
            event = torch.cuda.Event()
            event.record(self.d2h_stream)
        self.offload_events[group_to_offload] = event

    def _offload_small(self, group, tagged):
        padded = [(t.numel() * t.element_size() + STAGING_ALIGN - 1) // STAGING_ALIGN * STAGING_ALIGN
                  for _, t in tagged]
        staging = torch.empty(sum(padded), dtype=torch.uint8, device="cpu", pin_memory=True)
        dst_ptrs, src_ptrs, sizes = [], [], []
        offset = 0
        for (tensor_tag, tensor), span in zip(tagged, padded):
            nbytes = tensor.numel() * tensor.element_size()
            dst_ptrs.append(staging.data_ptr() + offset)
            src_ptrs.append(tensor.data_ptr())
            sizes.append(nbytes)
            view = staging.narrow(0, offset, nbytes).view(tensor.dtype).view(tensor.shape)
            self.tensor_tag_to_state[tensor_tag] = (tensor.device, view)
            offset += span
        self.staging[group] = staging
        memcpy_d2h_batch_async(dst_ptrs, src_ptrs, sizes, self.d2h_stream, torch.cuda.current_device())

    def bulk_reload_group(self, group_to_reload):
        event = self.offload_events.pop(group_to_reload, None)
        if event is None:
            return
        self.h2d_stream.wait_event(event)
        with torch.cuda.stream(self.h2d_stream):
            for tensor_tag, state in self.tensor_tag_to_state.items():
                if tensor_tag[0] == group_to_reload and isinstance(state, tuple):
                    self.tensor_tag_to_state[tensor_tag] = self.reload(state, non_blocking=True)
            reloaded = torch.cuda.Event()
            reloaded.record(self.h2d_stream)
        self.reload_events[group_to_reload] = reloaded

    def on_group_commit_forward(self):
        if self.current_group < self.num_offload_group:
            self.bulk_offload_group(self.current_group)
        self.current_group += 1
        self.tensor_count_current_group = 0

    def on_group_commit_backward(self):
        self.current_group -= 1
        assert self.current_group >= 0
        if 0 < self.current_group <= self.num_offload_group:
            self.bulk_reload_group(self.current_group - 1)
        # every tensor of the group above has been consumed by now
        self.staging.pop(self.current_group + 1, None)


class CpuOffloadHookWithOffloadHandler(torch.autograd.graph.saved_tensors_hooks):
    """Routes every tensor autograd saves for backward through an offload handler."""

    def __init__(self, offload_handler: OffloadHandler, handler_extra_kwargs=None):
        self.offload_handler = offload_handler
        self.handler_extra_kwargs = handler_extra_kwargs or {}
        super().__init__(self.on_save_for_backward, self.on_get_saved_tensor)

    def on_save_for_backward(self, tensor: torch.Tensor) -> Any:
        return self.offload_handler.tensor_push(tensor, **self.handler_extra_kwargs)

    def on_get_saved_tensor(self, saved_state: Any) -> torch.Tensor:
        return self.offload_handler.tensor_pop(saved_state, **self.handler_extra_kwargs)


class GroupCommitFunction(torch.autograd.Function):
    """Identity op marking the end of a layer group in forward and its start in backward."""

    @staticmethod
    def forward(ctx, tensor, cpu_offload_handler):
        cpu_offload_handler.on_group_commit_forward()
        ctx.cpu_offload_handler = cpu_offload_handler
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        ctx.cpu_offload_handler.on_group_commit_backward()
        return grad_output, None


group_prefetch_offload_commit = GroupCommitFunction.apply


def get_cpu_offload_context(enabled=False, num_layers=1, model_layers=1, offload_activations=True):

    def tensor_need_offloading_checker(tensor):
        return offload_activations and not hasattr(tensor, "avoid_offloading") and tensor.is_cuda

    if not enabled:
        return nullcontext(), (lambda tensor: tensor)
    handler = AsyncDoubleBufferGroupOffloadHandler(num_offload_group=num_layers, num_model_group=model_layers,
                                                   tensor_need_offloading_checker=tensor_need_offloading_checker)
    return CpuOffloadHookWithOffloadHandler(offload_handler=handler), (
        lambda tensor: group_prefetch_offload_commit(tensor, handler))
