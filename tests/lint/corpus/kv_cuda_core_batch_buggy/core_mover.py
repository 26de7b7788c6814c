"""Block offload through cuda.core's batched copy (``cuda.core.utils.copy_batch`` with
``CopyOptions``), on a cuda.core stream of its own, for KV caches owned by torch. Block
buffers are views made with ``Buffer.from_handle`` over the caches' memory. Bugs: the store
stream is never made to wait on the compute stream (torch's current stream), and the store
asks for "any" source access order, so its reads of GPU blocks are ordered behind nothing."""

import torch
from cuda.core import Buffer, Device
from cuda.core.utils import CopyOptions, copy_batch


class CoreBlockMover:
    def __init__(self, gpu_cache, num_cpu_blocks):
        self.device = Device(gpu_cache.device.index)
        self.device.set_current()
        self.gpu_cache = gpu_cache
        self.cpu_cache = torch.empty(
            (num_cpu_blocks,) + tuple(gpu_cache.shape[1:]), dtype=gpu_cache.dtype, pin_memory=True
        )
        self.block_bytes = gpu_cache.stride(0) * gpu_cache.element_size()
        self.store_stream = self.device.create_stream()
        self.load_stream = self.device.create_stream()
        self.store_options = CopyOptions(
            src_access_order="any",
        )
        self.load_options = CopyOptions(src_access_order="any")

    def _block_buffers(self, cache, blocks):
        base = cache.data_ptr()
        return [Buffer.from_handle(base + b * self.block_bytes, self.block_bytes) for b in blocks]

    def store(self, gpu_blocks, cpu_blocks):
        srcs = self._block_buffers(self.gpu_cache, gpu_blocks)
        dsts = self._block_buffers(self.cpu_cache, cpu_blocks)
        # expect: KVG001, KVG002
        copy_batch(self.store_stream, srcs, dsts, options=self.store_options)
        return self.store_stream.record()

    def load(self, cpu_blocks, gpu_blocks):
        compute = self.device.create_stream(torch.cuda.current_stream())
        self.load_stream.wait(compute)
        srcs = self._block_buffers(self.cpu_cache, cpu_blocks)
        dsts = self._block_buffers(self.gpu_cache, gpu_blocks)
        copy_batch(self.load_stream, srcs, dsts, options=self.load_options)
        done = self.load_stream.record()
        compute.wait(done)
        return done
