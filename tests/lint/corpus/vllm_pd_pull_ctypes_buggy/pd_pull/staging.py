"""Gathers a request's KV blocks from every layer into one pinned staging buffer with a
single batched copy on the stager's copy stream."""

import torch

from pd_pull import cudart


class BlockStager:
    def __init__(self, kv_caches, max_blocks):
        self.layers = list(kv_caches.values())
        first = self.layers[0]
        self.block_bytes = first[0].numel() * first.element_size()
        self.staging = torch.empty(len(self.layers) * max_blocks * self.block_bytes,
                                   dtype=torch.uint8, pin_memory=True)
        self.copy_stream = torch.cuda.Stream()
        self._attrs = cudart.CudaMemcpyAttributes()
        # a finished request's blocks are no longer written, let the DMA start right away
        self._attrs.srcAccessOrder = cudart.ORDER_ANY

    def stage(self, block_ids, kv_ready):
        """Runs on a copy-pool thread. Returns the number of staged bytes."""
        self.copy_stream.wait_event(kv_ready)
        base = self.staging.data_ptr()
        dsts, srcs = [], []
        for layer in self.layers:
            for block in block_ids:
                dsts.append(base + len(dsts) * self.block_bytes)
                srcs.append(layer.data_ptr() + block * self.block_bytes)
        cudart.memcpy_batch_async(dsts, srcs, [self.block_bytes] * len(dsts), self._attrs,
                                  self.copy_stream.cuda_stream)
        self.copy_stream.synchronize()
        return len(dsts) * self.block_bytes
