"""Swap partitioned fp16 parameters between the accelerator and NVMe through pinned buffers
(ZeRO-Infinity). A swap-out copies each partition into a pinned swap buffer on a swap stream
and hands the buffers to the aio write handle; a swap-in reads the file into a pinned buffer
and uploads it into a freshly allocated partition."""

import os
from dataclasses import dataclass, field
from enum import Enum

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.ops.op_builder import AsyncIOBuilder

from .utils import AIO_ALIGNED_BYTES, aligned_numel, swap_in_tensors, swap_out_tensors


class SwapStatus(Enum):
    AVAILABLE = 1
    NOT_AVAILABLE = 2
    INFLIGHT = 3


@dataclass
class SwapOutBatch:
    params: list
    buffer_ids: list
    buffers: list
    paths: list
    copy_done: object = field(default_factory=lambda: get_accelerator().Event())


class PartitionedParamSwapper:
    def __init__(self, aio_config, nvme_path, buffer_numel, buffer_count, dtype=torch.float16):
        self.dtype = dtype
        self.swap_folder = os.path.join(nvme_path, "zero_stage_3", "params")
        os.makedirs(self.swap_folder, exist_ok=True)
        element_size = torch.tensor([], dtype=dtype).element_size()
        self.numel_alignment = AIO_ALIGNED_BYTES * aio_config["thread_count"] // element_size
        self.buffer_numel = aligned_numel(buffer_numel, self.numel_alignment)
        self.buffers = get_accelerator().pin_memory(torch.empty(self.buffer_numel * buffer_count, dtype=dtype))
        self.available_buffer_ids = list(range(buffer_count))
        aio = AsyncIOBuilder().load(verbose=False)
        self.aio_write_handle = aio.aio_handle(
            aio_config["block_size"], aio_config["queue_depth"], aio_config["single_submit"],
            aio_config["overlap_events"], aio_config["thread_count"])
        self.aio_read_handle = aio.aio_handle(
            aio_config["block_size"], aio_config["queue_depth"], aio_config["single_submit"],
            aio_config["overlap_events"], aio_config["thread_count"])
        self.swap_stream = get_accelerator().Stream()
        self.pending_writes = []
        self.id_to_numel = {}

    def _path(self, param):
        return os.path.join(self.swap_folder, f"{param.ds_id}_param.tensor.swp")

    def _buffer(self, buffer_id, numel):
        return self.buffers.narrow(0, buffer_id * self.buffer_numel, aligned_numel(numel, self.numel_alignment))

    def swap_out_and_release(self, params):
        """Write the partitions of ``params`` to NVMe and free their device memory."""
        accel = get_accelerator()
        batch = SwapOutBatch(params=list(params), buffer_ids=[], buffers=[], paths=[])
        self.swap_stream.wait_stream(accel.current_stream())
        with accel.stream(self.swap_stream):
            for param in batch.params:
                partition = param.ds_tensor
                self.id_to_numel[param.ds_id] = partition.numel()
                buffer_id = self.available_buffer_ids.pop()
                swap_buffer = self._buffer(buffer_id, partition.numel())
                swap_buffer.narrow(0, 0, partition.numel()).copy_(partition.view(-1), non_blocking=True)
                partition.record_stream(self.swap_stream)
                batch.buffer_ids.append(buffer_id)
                batch.buffers.append(swap_buffer)
                batch.paths.append(self._path(param))
            batch.copy_done.record(self.swap_stream)
        # aio reads the pinned buffers from its own threads: the partitions must have landed
        batch.copy_done.synchronize()
        swap_out_tensors(self.aio_write_handle, batch.buffers, batch.paths)
        self.pending_writes.append(batch)
        for param in batch.params:
            param.ds_tensor = None
            param.ds_status = SwapStatus.NOT_AVAILABLE

    def synchronize_writes(self):
        if not self.pending_writes:
            return
        completed = self.aio_write_handle.wait()
        assert completed == sum(len(b.buffers) for b in self.pending_writes)
        for batch in self.pending_writes:
            self.available_buffer_ids.extend(batch.buffer_ids)
        self.pending_writes = []

    def swap_in(self, params):
        """Read ``params`` back from NVMe into fresh device partitions."""
        self.synchronize_writes()
        accel = get_accelerator()
        staged = []
        for param in params:
            numel = self.id_to_numel[param.ds_id]
            buffer_id = self.available_buffer_ids.pop()
            staged.append((param, buffer_id, numel, self._buffer(buffer_id, numel)))
        swap_in_tensors(self.aio_read_handle, [s[3] for s in staged], [self._path(s[0]) for s in staged])
        assert self.aio_read_handle.wait() == len(staged)
        for param, buffer_id, numel, swap_buffer in staged:
            partition = torch.empty(numel, dtype=self.dtype, device=accel.current_device_name())
            partition.copy_(swap_buffer.narrow(0, 0, numel), non_blocking=True)
            param.ds_tensor = partition
            param.ds_status = SwapStatus.AVAILABLE
        # the pinned buffers are free again once the uploads have read them
        accel.current_stream().synchronize()
        self.available_buffer_ids.extend(s[1] for s in staged)
