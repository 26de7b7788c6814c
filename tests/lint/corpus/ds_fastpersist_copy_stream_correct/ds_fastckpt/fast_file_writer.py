"""A file object whose tensor writes go through the pinned double buffer."""
import os

import torch

from .io_buffer import DoubleIOBuffer


class FastFileWriter:
    def __init__(self, file_path, dnvme_handle, pinned_tensor, copy_stream):
        self._file_path = file_path
        self._fd = os.open(file_path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC)
        self._io_buffer = DoubleIOBuffer(pinned_tensor, dnvme_handle, copy_stream)
        self._file_offset = 0

    def write_tensor(self, tensor):
        """Append the raw bytes of ``tensor`` (any device) to the file."""
        src = tensor.detach().contiguous().view(-1).view(torch.uint8)
        src_offset = 0
        while src_offset < src.numel():
            src_offset += self._io_buffer.fill(src, src_offset)
            if self._io_buffer.is_full():
                self._file_offset += self._io_buffer.drain(self._fd, self._file_offset)
        return src.numel()

    def close(self):
        self._file_offset += self._io_buffer.drain(self._fd, self._file_offset)
        self._io_buffer.complete_ongoing_drain()
        os.close(self._fd)
