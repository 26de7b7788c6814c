# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Asynchronous swap-out of device tensors through pinned staging buffers."""

from deepspeed.accelerator import get_accelerator

from .constants import ASYNC_SWAPPER_WAIT_TIMER, INVALID_BUFFER_INDEX
from .file_writer import SwapFileWriter
from .swap_buffer import PinnedSwapBuffer


class AsyncTensorSwapper(object):

    def __init__(self, writer: SwapFileWriter, numel_alignment: int, timers=None):
        self.writer = writer
        self.numel_alignment = numel_alignment
        self.timers = timers
        self.buffers = []
        self.free_buffer_index = []
        self.current_buffer_index = INVALID_BUFFER_INDEX
        self.pending_writes = []
        self.num_elements_swapped = 0
        self.swap_stream = get_accelerator().Stream()

    def add_buffers(self, pinned_buffers):
        for buffer in pinned_buffers:
            assert get_accelerator().is_pinned(buffer)
            self.free_buffer_index.append(len(self.buffers))
            self.buffers.append(PinnedSwapBuffer(buffer))

    def release_buffers(self):
        self.flush()
        pinned_buffers = [swap_buffer.buffer for swap_buffer in self.buffers]
        self.buffers = []
        self.free_buffer_index = []
        return pinned_buffers

    def swap_out_tensors(self, tensor_list, path_list):
        self.swap_stream.wait_stream(get_accelerator().current_stream())
        for tensor, swap_path in zip(tensor_list, path_list):
            self._swap_out_tensor(tensor, swap_path)

    def flush(self):
        if self.current_buffer_index != INVALID_BUFFER_INDEX:
            self._retire_current_buffer()
        self._wait_for_pending_writes()

    def _io_aligned_numel(self, numel):
        remainder = numel % self.numel_alignment
        return numel if remainder == 0 else numel + self.numel_alignment - remainder

    def _swap_out_tensor(self, tensor, swap_path):
        aligned_numel = self._io_aligned_numel(tensor.numel())
        self._make_swap_space(aligned_numel)
        swap_buffer = self.buffers[self.current_buffer_index]
        with get_accelerator().stream(self.swap_stream):
            swap_buffer.stage(tensor, swap_path, aligned_numel)
        self.num_elements_swapped += tensor.numel()

    def _make_swap_space(self, aligned_numel):
        if self.current_buffer_index != INVALID_BUFFER_INDEX:
            if self.buffers[self.current_buffer_index].has_space(aligned_numel):
                return
            self._retire_current_buffer()
        if len(self.free_buffer_index) == 0:
            self._wait_for_pending_writes()
        self.current_buffer_index = self.free_buffer_index.pop()
        self.buffers[self.current_buffer_index].reset()

    def _retire_current_buffer(self):
        swap_buffer = self.buffers[self.current_buffer_index]
        self.swap_stream.synchronize()
        future = self.writer.submit(swap_buffer.regions, swap_buffer.paths)
        self.pending_writes.append((self.current_buffer_index, future))
        self.current_buffer_index = INVALID_BUFFER_INDEX

    def _wait_for_pending_writes(self):
        self._start_timer(ASYNC_SWAPPER_WAIT_TIMER)
        for buffer_index, future in self.pending_writes:
            future.result()
            self.free_buffer_index.append(buffer_index)
        self.pending_writes = []
        self._stop_timer(ASYNC_SWAPPER_WAIT_TIMER)

    def _start_timer(self, name):
        if self.timers:
            self.timers(name).start()

    def _stop_timer(self, name):
        if self.timers:
            self.timers(name).stop()
