from __future__ import annotations

import logging

import torch

from .block_pool import KVBlockPool
from .config import KvCacheConfig
from .device import (current_stream, device_module, new_stream, record_event,
                     use_stream)

logger = logging.getLogger("tensorrt_llm")


class KVCacheTransferManager:
    """Moves KV blocks between the primary and the secondary pool."""

    def __init__(self, pool: KVBlockPool, config: KvCacheConfig):
        self._pool = pool
        self._config = config
        self._offload_stream = new_stream()
        self._onboard_stream = new_stream()
        # Last transfer touching a block, per pool.
        self._primary_events: dict[int, torch.Event] = {}
        self._secondary_events: dict[int, torch.Event] = {}
        self._unsynced: list[torch.Event] = []

    def _wait_block_events(self, stream: torch.Stream, gpu_block: int,
                           host_block: int) -> None:
        for event in (self._primary_events.get(gpu_block),
                      self._secondary_events.get(host_block)):
            if event is not None:
                event.wait(stream)

    def _track(self, stream: torch.Stream, gpu_block: int,
               host_block: int) -> torch.Event:
        event = record_event(stream)
        self._primary_events[gpu_block] = event
        self._secondary_events[host_block] = event
        self._unsynced.append(event)
        return event

    def offload(self, gpu_block: int, host_block: int) -> None:
        if self._config.sync_offload:
            device_module().synchronize()
        else:
            self._offload_stream.wait_stream(current_stream())
        self._wait_block_events(self._offload_stream, gpu_block, host_block)
        with use_stream(self._offload_stream):
            self._pool.secondary[host_block].copy_(
                self._pool.primary[gpu_block], non_blocking=True)
        self._track(self._offload_stream, gpu_block, host_block)
        logger.info("offload primary %d -> secondary %d", gpu_block,
                     host_block)

    def onboard(self, host_block: int, gpu_block: int) -> None:
        self._onboard_stream.wait_stream(current_stream())
        self._wait_block_events(self._onboard_stream, gpu_block, host_block)
        with use_stream(self._onboard_stream):
            self._pool.primary[gpu_block].copy_(
                self._pool.secondary[host_block], non_blocking=True)
        self._track(self._onboard_stream, gpu_block, host_block)
        logger.info("onboard secondary %d -> primary %d", host_block,
                     gpu_block)

    def sync_transfers(self) -> None:
        """Order the next forward pass after every transfer issued so far."""
        compute = current_stream()
        for event in self._unsynced:
            event.wait(compute)
        self._unsynced.clear()
