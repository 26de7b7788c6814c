"""KV cache transfer manager (TensorRT-LLM style): offloads primary (GPU) blocks to a secondary
(pinned host) pool and onboards them back. Urgent offloads use the onboard stream so they are
not queued behind a long background offload."""

import torch


class KVCacheTransferManager:
    def __init__(self, primary_pool, secondary_pool, overlap=True):
        self.primary = primary_pool
        self.secondary = secondary_pool
        self.overlap = overlap
        self.offload_stream = torch.cuda.Stream()
        self.onboard_stream = torch.cuda.Stream()
        self.step_done = torch.cuda.Event()

    def mark_step(self):
        # Recorded on the compute stream after the forward pass that wrote the blocks.
        self.step_done.record()

    def offload(self, block_ids, urgent=False):
        if not block_ids:
            return
        background = self.overlap and not urgent
        stream = self.offload_stream if background else self.onboard_stream
        if background:
            self.offload_stream.wait_event(self.step_done)
        with torch.cuda.stream(stream):
            for b in block_ids:
                # expect: KVG001
                self.secondary[b].copy_(self.primary[b], non_blocking=True)

    def onboard(self, block_ids):
        if not block_ids:
            return
        self.onboard_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.onboard_stream):
            for b in block_ids:
                self.primary[b].copy_(self.secondary[b], non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.onboard_stream)
