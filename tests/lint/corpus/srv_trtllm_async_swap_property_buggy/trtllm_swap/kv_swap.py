"""Host swap space for the paged KV cache of a PyTorch-backend executor. Preempted requests'
blocks go out to pinned memory (and on to a spill file when asked), resumed ones come back.
The swap stream is created lazily so that constructing the manager does not touch the GPU."""

import asyncio

import torch


class KVSwapManager:
    def __init__(self, num_device_blocks, num_host_blocks, block_numel, dtype=torch.float16):
        self.device_blocks = torch.zeros(num_device_blocks, block_numel, dtype=dtype, device="cuda")
        self.host_blocks = torch.zeros(num_host_blocks, block_numel, dtype=dtype, pin_memory=True)
        self._swap_stream = None

    @property
    def swap_stream(self):
        if self._swap_stream is None:
            self._swap_stream = torch.cuda.Stream()
        return self._swap_stream

    def _after_forward(self):
        # the executor runs its engine on a stream of its own, made current with set_stream
        self.swap_stream.wait_stream(torch.cuda.default_stream())

    async def swap_out(self, mapping, spill=None):
        self._after_forward()
        with torch.cuda.stream(self.swap_stream):
            for dev, host in mapping:
                # expect: KVG001
                self.host_blocks[host].copy_(self.device_blocks[dev], non_blocking=True)
            copied = self.swap_stream.record_event()
        if spill is None:
            return
        while not copied.query():
            await asyncio.sleep(0)
        for _, host in mapping:
            spill.write(self.host_blocks[host].numpy().tobytes())

    async def swap_in(self, mapping):
        # the device blocks were freed by requests whose attention kernels may still be queued
        self._after_forward()
        with torch.cuda.stream(self.swap_stream):
            for host, dev in mapping:
                # expect: KVG004
                self.device_blocks[dev].copy_(self.host_blocks[host], non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.swap_stream)
