"""The host swap space and the two swap operations."""

import torch

from .batch_copy import memcpy_batch
from .directions import SwapDirection


class PagedSwapSpace:
    def __init__(self, gpu_cache, num_host_blocks):
        self.gpu_cache = gpu_cache  # per layer: (num_blocks, 2, block_size, heads, head_dim)
        self.device = gpu_cache[0].device
        self.host_cache = [
            torch.empty((num_host_blocks,) + tuple(t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in gpu_cache
        ]
        self.block_bytes = gpu_cache[0][0].numel() * gpu_cache[0].element_size()
        self.swap_stream = torch.cuda.Stream(self.device)
        self.swapped_out = {}

    def _pointers(self, src_tensors, dst_tensors, pairs):
        srcs, dsts, sizes = [], [], []
        for src, dst in zip(src_tensors, dst_tensors):
            for s, d in pairs:
                srcs.append(src.data_ptr() + s * self.block_bytes)
                dsts.append(dst.data_ptr() + d * self.block_bytes)
                sizes.append(self.block_bytes)
        return srcs, dsts, sizes

    def swap_out(self, request_id, pairs):
        """pairs: (gpu_block, host_block). Called after the step that last wrote the blocks."""
        written = torch.cuda.current_stream(self.device).record_event()
        self.swap_stream.wait_event(written)
        srcs, dsts, sizes = self._pointers(self.gpu_cache, self.host_cache, pairs)
        memcpy_batch(SwapDirection.OUT, dsts, srcs, sizes, self.device.index, self.swap_stream)
        self.swapped_out[request_id] = (pairs, self.swap_stream.record_event())
        # the scheduler hands the GPU blocks to other requests right away: their next writes
        # must not overtake the swap-out reading them
        torch.cuda.current_stream(self.device).wait_stream(self.swap_stream)

    def swap_in(self, request_id, gpu_blocks):
        pairs, out_done = self.swapped_out.pop(request_id)
        out_done.synchronize()
        # the freshly assigned GPU blocks may still be read by the previous step's attention
        self.swap_stream.wait_stream(torch.cuda.current_stream(self.device))
        back = [(host, gpu) for (_, host), gpu in zip(pairs, gpu_blocks)]
        srcs, dsts, sizes = self._pointers(self.host_cache, self.gpu_cache, back)
        memcpy_batch(SwapDirection.IN, dsts, srcs, sizes, self.device.index, self.swap_stream)
        torch.cuda.current_stream(self.device).wait_stream(self.swap_stream)
