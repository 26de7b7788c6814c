# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""
Functionality of swapping gradient tensors to storage devices.
"""
from deepspeed.accelerator import get_accelerator
from deepspeed.utils.logging import logger

from ds_swap.constants import ASYNC_SWAPPER_WAIT_TIMER, INVALID_BUFFER_INDEX, SWAP_OUT_GRADIENT_TIMER
from ds_swap.utils import SwapBuffer, io_aligned_numel


class AsyncTensorSwapper(object):

    def __init__(self, writer, numel_alignment, timers=None):
        self.free_buffer_index = []
        self.swapping_buffer_index = []
        self.ready_buffer_index = []
        self.current_buffer_index = INVALID_BUFFER_INDEX
        self.all_buffers = []
        self.writer = writer
        self.numel_alignment = numel_alignment
        self.max_numel = 0
        self.timers = timers
        self.num_elements_swapped = 0
        self.swap_stream = get_accelerator().Stream()

    def add_buffers(self, buffer_list):
        assert len(self.all_buffers) == 0
        assert all([get_accelerator().is_pinned(buffer) for buffer in buffer_list])
        self.all_buffers = [SwapBuffer(buffer) for buffer in buffer_list]
        self.free_buffer_index += [i for i in range(len(self.all_buffers))]
        self.max_numel = max([buffer.numel() for buffer in buffer_list])

    def release_buffers(self):
        self._flush_buffers_until_complete()
        pinned_buffers = [buf.buffer for buf in self.all_buffers]
        self.all_buffers = []
        self.free_buffer_index = []
        self.current_buffer_index = INVALID_BUFFER_INDEX
        logger.debug(f'swapped out {self.num_elements_swapped} elements')
        return pinned_buffers

    def swap_out_tensors(self, tensor_list, path_list):
        self._start_timer(SWAP_OUT_GRADIENT_TIMER)
        self.swap_stream.wait_stream(get_accelerator().current_stream())
        for tensor, swap_path in zip(tensor_list, path_list):
            self._swap_out_tensor(tensor, swap_path)
        get_accelerator().current_stream().wait_stream(self.swap_stream)
        self._stop_timer(SWAP_OUT_GRADIENT_TIMER)

    def _swap_out_tensor(self, tensor, swap_path):
        aligned_numel = io_aligned_numel(tensor.numel(), self.numel_alignment)
        assert aligned_numel <= self.max_numel
        self._make_swap_space(aligned_numel)
        swap_buffer = self.all_buffers[self.current_buffer_index]
        dst = swap_buffer.insert_tensor(tensor, swap_path, aligned_numel)
        with get_accelerator().stream(self.swap_stream):
            dst.copy_(tensor.view(-1), non_blocking=True)

    def _make_swap_space(self, numel):
        if self.current_buffer_index == INVALID_BUFFER_INDEX:
            self._allocate_buffer()
            return
        if not self.all_buffers[self.current_buffer_index].has_space(numel):
            if len(self.free_buffer_index) > 0:
                self._flush_ready_buffers()
            else:
                self._flush_buffers_until_complete()
            self._allocate_buffer()

    def _allocate_buffer(self):
        assert len(self.free_buffer_index) > 0
        self.current_buffer_index = self.free_buffer_index.pop()

    def _flush_ready_buffers(self):
        if self.current_buffer_index != INVALID_BUFFER_INDEX:
            self.ready_buffer_index.append(self.current_buffer_index)
            self.current_buffer_index = INVALID_BUFFER_INDEX
        self._swap_out_ready_buffers()

    def _flush_buffers_until_complete(self):
        self._flush_ready_buffers()
        if len(self.swapping_buffer_index) > 0:
            self._wait_for_swap_complete()
        assert len(self.free_buffer_index) == len(self.all_buffers)

    def _swap_out_ready_buffers(self):
        self.swap_stream.synchronize()
        for buffer_index in self.ready_buffer_index:
            buffer = self.all_buffers[buffer_index]
            self.writer.async_pwrite(buffer.get_swap_tensors(), buffer.get_swap_paths())
        self.swapping_buffer_index += self.ready_buffer_index
        self.ready_buffer_index = []

    def _wait_for_swap_complete(self):
        self._start_timer(ASYNC_SWAPPER_WAIT_TIMER)
        self.writer.wait()
        self._stop_timer(ASYNC_SWAPPER_WAIT_TIMER)
        for buffer_index in self.swapping_buffer_index:
            buffer = self.all_buffers[buffer_index]
            self.num_elements_swapped += buffer.get_num_elem()
            buffer.reset()
        self.free_buffer_index += self.swapping_buffer_index
        self.swapping_buffer_index = []

    def _start_timer(self, name):
        if self.timers:
            self.timers(name).start()

    def _stop_timer(self, name):
        if self.timers:
            self.timers(name).stop()
