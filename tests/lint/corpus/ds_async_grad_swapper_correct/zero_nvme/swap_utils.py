"""Pinned swap buffers and the aio helpers (deepspeed/runtime/swap_tensor/utils.py, trimmed)."""
import torch

from deepspeed.accelerator import get_accelerator


def swap_out_tensors(swap_handle, tensor_buffers, swap_paths):
    for buffer, path in zip(tensor_buffers, swap_paths):
        assert swap_handle.async_pwrite(buffer, path) == 0


class SwapBuffer:
    """One pinned buffer into which several tensors are packed back to back."""

    def __init__(self, buffer):
        self.buffer = buffer
        # marks the last device-to-host copy packed into this buffer
        self.copy_event = get_accelerator().Event()
        self.reset()

    def reset(self):
        self.offset = 0
        self.swap_tensors = {}
        self.compute_tensors = {}
        self.swap_paths = {}
        self.num_elem = 0

    def insert_tensor(self, tensor, swap_path, aligned_numel):
        swap_tensor, compute_tensor = self.allocate_tensor(swap_path, tensor.numel(), aligned_numel)
        # the source is a device gradient partition: let the copy overlap the rest of backward
        compute_tensor.data.copy_(tensor.data, non_blocking=True)
        self.copy_event.record()
        return swap_tensor, compute_tensor

    def allocate_tensor(self, swap_path, numel, aligned_numel):
        assert self.has_space(aligned_numel)
        assert self.offset not in self.swap_tensors

        allocate_offset = self.offset
        swap_tensor = self.buffer.narrow(0, allocate_offset, aligned_numel)
        dest_tensor = swap_tensor.narrow(0, 0, numel)

        self.swap_tensors[allocate_offset] = swap_tensor
        self.compute_tensors[allocate_offset] = dest_tensor
        self.swap_paths[allocate_offset] = swap_path
        self.offset += aligned_numel
        self.num_elem += numel
        return self.swap_tensors[allocate_offset], self.compute_tensors[allocate_offset]

    def has_space(self, numel):
        return (self.offset + numel) <= self.buffer.numel()

    def get_swap_tensors(self):
        return [tensor for tensor in self.swap_tensors.values()]

    def wait_for_copies(self):
        self.copy_event.synchronize()

    def get_swap_paths(self):
        return [path for path in self.swap_paths.values()]

    def get_num_elem(self):
        return self.num_elem


def allocate_pinned_swap_buffers(count, numel, dtype=torch.float32):
    return [get_accelerator().pin_memory(torch.zeros(numel, dtype=dtype)) for _ in range(count)]
