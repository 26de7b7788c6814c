"""Partitioned-parameter swap to NVMe in the shape of DeepSpeed's AsyncPartitionedParameterSwapper:
parameters are copied from the device into aligned pinned buffers, then an async I/O handle writes
the buffers to swap files from its own threads; a small pinned header records each partition's
numel and checksum. An event recorded after each device-to-host copy is synchronised before the
aio handle or ``os.write`` reads the pinned memory."""

import os

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.ops.op_builder import AsyncIOBuilder


class NvmeParamSwapper:
    def __init__(self, swap_folder, buffer_numel, buffer_count, block_size=1048576, queue_depth=8):
        self.swap_folder = swap_folder
        self.aio_handle = AsyncIOBuilder().load().aio_handle(block_size, queue_depth, False, True, 1)
        self.buffers = get_accelerator().pin_memory(torch.empty(buffer_count * buffer_numel, dtype=torch.float16))
        self.buffer_numel = buffer_numel
        self.header_gpu = torch.zeros(2, dtype=torch.int64, device=get_accelerator().device_name())
        self.header_pinned = get_accelerator().pin_memory(torch.zeros(2, dtype=torch.int64))
        self.copied = get_accelerator().Event()
        self.uploads_done = get_accelerator().Event()
        self.pending_writes = 0

    def _path(self, param_id):
        return os.path.join(self.swap_folder, f"param_{param_id}.swp")

    def swap_out(self, param_id, slot, partition):
        # One write in flight: the aio threads may still be reading the buffers.
        self.synchronize_writes()
        buffer = self.buffers.narrow(0, slot * self.buffer_numel, partition.numel())
        buffer.copy_(partition.view(-1), non_blocking=True)
        self.copied.record()
        self.copied.synchronize()
        self.aio_handle.async_pwrite(buffer, self._path(param_id))
        self.pending_writes += 1

    def write_header(self, param_id, partition):
        self.header_gpu[0] = partition.numel()
        self.header_gpu[1] = partition.view(torch.int16).to(torch.int64).sum()
        self.header_pinned.copy_(self.header_gpu, non_blocking=True)
        self.copied.record()
        self.copied.synchronize()
        fd = os.open(self._path(param_id) + ".hdr", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        try:
            os.write(fd, memoryview(self.header_pinned.numpy()))
        finally:
            os.close(fd)

    def synchronize_writes(self):
        if self.pending_writes:
            self.aio_handle.wait()
            self.pending_writes = 0

    def swap_in(self, param_id, slot, partition):
        buffer = self.buffers.narrow(0, slot * self.buffer_numel, partition.numel())
        self.synchronize_writes()
        # Earlier uploads out of the buffers must be done before the aio threads refill them.
        self.uploads_done.synchronize()
        self.aio_handle.async_pread(buffer, self._path(param_id))
        self.aio_handle.wait()
        partition.view(-1).copy_(buffer, non_blocking=True)
        self.uploads_done.record()
