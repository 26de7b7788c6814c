import os

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.ops.op_builder import AsyncIOBuilder

from .aio_writer import AioWriteThread, SwapOutRequest
from .swap_buffers import SwapBufferPool
from .swap_config import SWAP_FILE_SUFFIX, NVMeSwapConfig, PartitionedParamStatus


class AsyncPartitionedParameterSwapper:

    def __init__(self, config: NVMeSwapConfig, dtype=torch.float16, rank=0):
        self.config = config
        self.dtype = dtype
        self.device = get_accelerator().current_device_name()
        self.element_size = torch.tensor([], dtype=dtype).element_size()
        self.swap_folder = os.path.join(config.nvme_path, "zero_stage_3", f"{dtype}params", f"rank{rank}")
        os.makedirs(self.swap_folder, exist_ok=True)

        self.pool = SwapBufferPool(config.buffer_count, config.buffer_size, dtype)
        aio_op = AsyncIOBuilder().load()
        aio = config.aio
        self.aio_read_handle = aio_op.aio_handle(aio.block_size, aio.queue_depth, aio.single_submit,
                                                 aio.overlap_events, aio.thread_count)
        self.writer = AioWriteThread(
            aio_op.aio_handle(aio.block_size, aio.queue_depth, aio.single_submit, aio.overlap_events,
                              aio.thread_count), self._write_complete)
        self.writer.start()

        self.swap_stream = get_accelerator().Stream()
        self.inflight_writes: dict[int, SwapOutRequest] = {}
        self.pending_reads = []

    def _swap_path(self, param) -> str:
        return os.path.join(self.swap_folder, f"{param.ds_id}_param{SWAP_FILE_SUFFIX}")

    def _write_complete(self, request: SwapOutRequest) -> None:
        self.pool.release(request.buffer_idx)

    @torch.no_grad()
    def swap_out_and_release(self, params):
        # ds_tensor was just written by the optimizer step on the compute stream
        self.swap_stream.wait_stream(get_accelerator().current_stream())
        requests = []
        copy_done = get_accelerator().Event()
        with get_accelerator().stream(self.swap_stream):
            for param in params:
                numel = param.ds_tensor.numel()
                aligned = self.config.aligned_numel(numel, self.element_size)
                idx, buffer = self.pool.acquire(aligned)
                buffer.narrow(0, 0, numel).copy_(param.ds_tensor.view(-1), non_blocking=True)
                param.ds_tensor.record_stream(self.swap_stream)
                requests.append(
                    SwapOutRequest(param_id=param.ds_id, buffer_idx=idx, buffer=buffer, aligned_numel=aligned,
                                   path=self._swap_path(param), copy_done=copy_done))
            copy_done.record(self.swap_stream)

        for param, request in zip(params, requests):
            param.ds_numel = param.ds_tensor.numel()
            param.ds_tensor.data = torch.empty(0, dtype=self.dtype, device=self.device)
            param.ds_tensor.status = PartitionedParamStatus.NOT_AVAILABLE
            self.inflight_writes[param.ds_id] = request
            self.writer.submit(request)

    @torch.no_grad()
    def swap_in(self, params):
        self._reclaim_read_buffers()
        reads = []
        for param in params:
            write = self.inflight_writes.pop(param.ds_id, None)
            if write is not None:
                write.done.wait()
            aligned = self.config.aligned_numel(param.ds_numel, self.element_size)
            idx, buffer = self.pool.acquire(aligned)
            param.ds_tensor.status = PartitionedParamStatus.INFLIGHT
            self.aio_read_handle.async_pread(buffer.narrow(0, 0, aligned), self._swap_path(param))
            reads.append((param, idx, buffer))
        self.aio_read_handle.wait()

        with get_accelerator().stream(self.swap_stream):
            for param, _, buffer in reads:
                gpu = torch.empty(param.ds_numel, dtype=self.dtype, device=self.device)
                gpu.copy_(buffer.narrow(0, 0, param.ds_numel), non_blocking=True)
                param.ds_tensor.data = gpu
            copied = get_accelerator().Event()
            copied.record(self.swap_stream)
        get_accelerator().current_stream().wait_event(copied)

        for param, _, _ in reads:
            param.ds_tensor.status = PartitionedParamStatus.AVAILABLE
        self.pending_reads.append((copied, [idx for _, idx, _ in reads]))

    def _reclaim_read_buffers(self, block=False):
        still_pending = []
        for event, indices in self.pending_reads:
            if block:
                event.synchronize()
            if block or event.query():
                for idx in indices:
                    self.pool.release(idx)
            else:
                still_pending.append((event, indices))
        self.pending_reads = still_pending

    def close(self):
        self._reclaim_read_buffers(block=True)
        self.writer.close()
