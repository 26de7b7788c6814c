# SPDX-License-Identifier: Apache-2.0
"""NVMe swap helpers in the shape of ``deepspeed.runtime.swap_tensor.utils``."""

import os

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils.logging import logger

MIN_AIO_BYTES = 1024**2
AIO_ALIGNED_BYTES = 1024


def swap_in_tensors(swap_handle, tensor_buffers, swap_paths):
    for buffer, path in zip(tensor_buffers, swap_paths):
        assert swap_handle.async_pread(buffer, path, 0) == 0


def swap_out_tensors(swap_handle, tensor_buffers, swap_paths):
    for buffer, path in zip(tensor_buffers, swap_paths):
        # expect: KVG003
        assert swap_handle.async_pwrite(buffer, path, 0) == 0


def get_sized_buffer(buffer, num_elems):
    assert num_elems <= buffer.numel(), f"num_elems {num_elems} > buffer {buffer.numel()}"
    return buffer.narrow(0, 0, num_elems) if num_elems < buffer.numel() else buffer


def state_swap_paths(base_folder, param_id, num_states):
    return [os.path.join(base_folder, f"param_{param_id}_state_{i}.tensor.swp") for i in range(num_states)]


class SwapBufferManager:
    def __init__(self, num_elems, count, dtype):
        self.num_elems = num_elems
        self.dtype = dtype
        self.all_buffers = [
            get_accelerator().pin_memory(torch.zeros(num_elems, dtype=dtype, device="cpu")) for _ in range(count)
        ]
        self.free_buffer_index = list(range(count))
        self.used_buffer_index = {}
        logger.info(f"SwapBufferManager: {count} pinned buffers of {num_elems} x {dtype}")

    def allocate(self, num_elems, count):
        assert num_elems <= self.num_elems
        if count > len(self.free_buffer_index):
            return None
        used = self.free_buffer_index[-count:]
        self.free_buffer_index = self.free_buffer_index[:-count]
        buffers = []
        for i in used:
            tmp = self.all_buffers[i].narrow(0, 0, num_elems)
            buffers.append(tmp)
            self.used_buffer_index[id(tmp)] = i
        return buffers

    def free(self, buffers):
        for buf in buffers:
            self.free_buffer_index.append(self.used_buffer_index.pop(id(buf)))
