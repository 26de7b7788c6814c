"""Asynchronous swapping of tensors to NVMe through a small pool of pinned buffers."""
from .swap_utils import SwapBuffer, swap_out_tensors

INVALID_BUFFER_INDEX = -1


class AsyncTensorSwapper:
    def __init__(self, aio_handle, numel_alignment):
        self.free_buffer_index = []
        self.swapping_buffer_index = []
        self.ready_buffer_index = []
        self.current_buffer_index = INVALID_BUFFER_INDEX
        self.all_buffers = []
        self.aio_handle = aio_handle
        self.numel_alignment = numel_alignment
        self.max_numel = 0
        self.num_pending_swaps = 0

    def add_buffers(self, buffer_list):
        assert len(self.all_buffers) == 0
        self.all_buffers = [SwapBuffer(buffer) for buffer in buffer_list]
        self.free_buffer_index += [i for i in range(len(self.all_buffers))]
        self.max_numel = max(buffer.numel() for buffer in buffer_list)

    def release_buffers(self):
        self._flush_buffers_until_complete()
        pinned_buffers = [buf.buffer for buf in self.all_buffers]
        self.all_buffers = []
        self.free_buffer_index = []
        self.current_buffer_index = INVALID_BUFFER_INDEX
        return pinned_buffers

    def swap_out_tensors(self, tensor_list, path_list):
        for tensor, swap_path in zip(tensor_list, path_list):
            self._swap_out_tensor(tensor, swap_path)

    def _swap_out_tensor(self, tensor, swap_path):
        aligned_numel = self._io_aligned_numel(tensor.numel())
        assert aligned_numel <= self.max_numel
        self._make_swap_space(aligned_numel)
        swap_buffer = self.all_buffers[self.current_buffer_index]
        swap_buffer.insert_tensor(tensor, swap_path, aligned_numel)

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

    def _io_aligned_numel(self, numel):
        remainder = numel % self.numel_alignment
        return numel if remainder == 0 else (numel + self.numel_alignment - remainder)

    def _allocate_buffer(self):
        self.current_buffer_index = self.free_buffer_index[-1]
        self.free_buffer_index = self.free_buffer_index[:-1]

    def _flush_ready_buffers(self):
        if self.current_buffer_index != INVALID_BUFFER_INDEX:
            self.ready_buffer_index.append(self.current_buffer_index)
            self.current_buffer_index = INVALID_BUFFER_INDEX
        self._swap_out_ready_buffers()

    def _flush_buffers_until_complete(self):
        self._flush_ready_buffers()
        self._wait_for_swap_complete()

    def _swap_out_ready_buffers(self):
        for buffer_index in self.ready_buffer_index:
            buffer = self.all_buffers[buffer_index]
            swap_tensors = buffer.get_swap_tensors()
            swap_paths = buffer.get_swap_paths()
            # the aio threads read the pinned memory directly: the packed copies must have landed
            buffer.wait_for_copies()
            self.num_pending_swaps += len(swap_tensors)
            swap_out_tensors(self.aio_handle, swap_tensors, swap_paths)
        self.swapping_buffer_index += self.ready_buffer_index
        self.ready_buffer_index = []

    def _wait_for_swap_complete(self):
        if not self.swapping_buffer_index:
            return
        assert self.aio_handle.wait() == self.num_pending_swaps
        self.num_pending_swaps = 0
        for buffer_index in self.swapping_buffer_index:
            self.all_buffers[buffer_index].reset()
        self.free_buffer_index += self.swapping_buffer_index
        self.swapping_buffer_index = []
