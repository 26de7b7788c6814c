"""Moves KV blocks between the primary (GPU) and secondary (host) pools."""

from typing import Dict, List, Optional, Tuple

import torch

from .constants import COMPUTE_STREAM, OFFLOAD_STREAM, ONBOARD_STREAM

BlockPairs = List[Tuple[int, int]]  # (primary block, secondary block)


class KVCacheTransferManager:
    def __init__(self, primary_pool: torch.Tensor, secondary_pool: torch.Tensor):
        self._primary = primary_pool
        self._secondary = secondary_pool
        self._streams: Dict[str, torch.cuda.Stream] = {
            COMPUTE_STREAM: torch.cuda.current_stream(),
            OFFLOAD_STREAM: torch.cuda.Stream(),
            ONBOARD_STREAM: torch.cuda.Stream(),
        }
        self._offload_done: Dict[int, torch.cuda.Event] = {}

    def offload(self, request_id: int, pairs: BlockPairs,
                ready: Optional[torch.cuda.Event] = None) -> None:
        stream = self._streams[OFFLOAD_STREAM]
        if ready is not None:
            stream.wait_event(ready)
        else:
            stream.wait_stream(self._streams[COMPUTE_STREAM])
        with torch.cuda.stream(stream):
            for primary, secondary in pairs:
                self._secondary[secondary].copy_(self._primary[primary], non_blocking=True)
        done = torch.cuda.Event()
        done.record(stream)
        self._offload_done[request_id] = done

    def onboard(self, pairs: BlockPairs) -> None:
        stream = self._streams[ONBOARD_STREAM]
        # Destination blocks were just recycled from requests whose attention
        # kernels may still be running on the compute stream.
        stream.wait_stream(self._streams[COMPUTE_STREAM])
        # Host blocks may still be in flight from an earlier offload.
        stream.wait_stream(self._streams[OFFLOAD_STREAM])
        with torch.cuda.stream(stream):
            for primary, secondary in pairs:
                self._primary[primary].copy_(self._secondary[secondary], non_blocking=True)

    def sync_transfers(self) -> None:
        """Make the compute stream see every onboarded block, and keep it from
        overwriting recycled blocks that an offload is still reading."""
        self._streams[COMPUTE_STREAM].wait_stream(self._streams[ONBOARD_STREAM])
        self._streams[COMPUTE_STREAM].wait_stream(self._streams[OFFLOAD_STREAM])

    def offload_finished(self, request_id: int) -> bool:
        done = self._offload_done.get(request_id)
        return done is None or done.query()
