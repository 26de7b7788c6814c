"""Copies blocks between the primary and secondary pools on a dedicated transfer stream."""

import torch

from .pools import PrimaryPool, SecondaryPool


class KVCacheTransferManager:
    def __init__(self, primary: PrimaryPool, secondary: SecondaryPool):
        self.primary = primary
        self.secondary = secondary
        self._stream = torch.cuda.Stream()

    @property
    def stream(self):
        return self._stream

    def sync_with_compute(self):
        """Make later transfers wait for the work queued so far on the compute stream."""
        ready = torch.cuda.Event()
        ready.record()
        self._stream.wait_event(ready)

    def offload(self, gpu_block: int, host_block: int):
        with torch.cuda.stream(self._stream):
            self.secondary.data[host_block].copy_(self.primary.data[gpu_block], non_blocking=True)

    def onboard(self, gpu_block: int, host_block: int):
        with torch.cuda.stream(self._stream):
            self.primary.data[gpu_block].copy_(self.secondary.data[host_block], non_blocking=True)

    def sync_transfers(self):
        """The compute stream must not read onboarded blocks before they land."""
        torch.cuda.current_stream().wait_stream(self._stream)
