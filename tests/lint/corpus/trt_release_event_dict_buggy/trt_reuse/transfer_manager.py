"""Moves blocks between the primary (device) and secondary (pinned host) pools on two copy
streams. Each copy is ordered behind an event the caller gives it, so an offload or onboard waits
only for the kernels that last used its block instead of for the whole runtime stream."""

from typing import Optional

import torch


class KVCacheTransferManager:
    def __init__(self, primary: torch.Tensor, secondary: torch.Tensor):
        self.primary = primary
        self.secondary = secondary
        self.onboard_stream = torch.cuda.Stream()
        self.offload_stream = torch.cuda.Stream()

    def offload(self, primary_block: int, secondary_block: int, after: torch.cuda.Event) -> None:
        self.offload_stream.wait_event(after)
        with torch.cuda.stream(self.offload_stream):
            # expect: KVG001
            self.secondary[secondary_block].copy_(self.primary[primary_block], non_blocking=True)

    def onboard(self, secondary_block: int, primary_block: int, after: Optional[torch.cuda.Event]) -> None:
        # a released block may still be read by its own offload
        self.onboard_stream.wait_stream(self.offload_stream)
        if after is not None:
            self.onboard_stream.wait_event(after)
        with torch.cuda.stream(self.onboard_stream):
            # expect: KVG004
            self.primary[primary_block].copy_(self.secondary[secondary_block], non_blocking=True)

    def sync_transfers(self, runtime_stream: torch.cuda.Stream) -> None:
        runtime_stream.wait_stream(self.onboard_stream)
        runtime_stream.wait_stream(self.offload_stream)
