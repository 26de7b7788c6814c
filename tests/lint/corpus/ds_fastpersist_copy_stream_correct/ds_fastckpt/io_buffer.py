"""Pinned double buffer: one half fills while the other drains to the file."""
import torch

from deepspeed.accelerator import get_accelerator

NUM_BUFFERS = 2


class DoubleIOBuffer:
    def __init__(self, pinned_tensor, dnvme_handle, copy_stream):
        self._pinned_tensor = pinned_tensor
        self._dnvme_handle = dnvme_handle
        self._copy_stream = copy_stream
        half = pinned_tensor.numel() // NUM_BUFFERS
        self._buffers = [torch.narrow(pinned_tensor, 0, i * half, half) for i in range(NUM_BUFFERS)]
        self._fill_index = 0
        self._drain_pending = False
        self._buffer_offset = 0

    def fill(self, src_tensor, src_offset):
        buffer_tensor = self._buffers[self._fill_index]
        copy_bytes = min(src_tensor.numel() - src_offset, buffer_tensor.numel() - self._buffer_offset)
        if copy_bytes > 0:
            src_slice = torch.narrow(src_tensor, 0, src_offset, copy_bytes)
            dst_slice = torch.narrow(buffer_tensor, 0, self._buffer_offset, copy_bytes)
            with get_accelerator().stream(self._copy_stream):
                dst_slice.copy_(src_slice, non_blocking=True)
        self._buffer_offset += copy_bytes
        return copy_bytes

    def is_full(self):
        return self._buffer_offset == self._buffers[self._fill_index].numel()

    def drain(self, fd, file_offset):
        num_bytes = self._buffer_offset
        # the staged bytes must have landed before the aio threads read the pinned memory
        self._copy_stream.synchronize()
        self.complete_ongoing_drain()
        buffer = torch.narrow(self._buffers[self._fill_index], 0, 0, num_bytes)
        assert self._dnvme_handle.async_pwrite(buffer, fd, file_offset) == 0
        self._drain_pending = True
        self._fill_index = (self._fill_index + 1) % NUM_BUFFERS
        self._buffer_offset = 0
        return num_bytes

    def complete_ongoing_drain(self):
        if self._drain_pending:
            assert self._dnvme_handle.wait() == 1
            self._drain_pending = False
