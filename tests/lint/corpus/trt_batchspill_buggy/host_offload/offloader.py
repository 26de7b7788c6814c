"""Evicts GPU KV blocks to pinned host memory, then to disk."""

import threading
from functools import partial
from typing import Dict, List, Tuple

import torch

from .batch_copy import batch_copy_d2h, make_d2h_attributes
from .constants import BLOCK_BYTES
from .spill import DiskSpiller


class HostKVOffloader:
    def __init__(self, primary_pool: torch.Tensor, num_host_blocks: int, spiller: DiskSpiller):
        self._primary = primary_pool  # [num_blocks, BLOCK_BYTES] uint8 on the GPU
        self._host_pool = torch.empty((num_host_blocks, BLOCK_BYTES), dtype=torch.uint8,
                                      pin_memory=True)
        self._streams: Dict[str, torch.cuda.Stream] = {
            "compute": torch.cuda.current_stream(),
            "d2h": torch.cuda.Stream(),
        }
        self._attr = make_d2h_attributes(primary_pool.device.index or 0)
        self._spiller = spiller
        self._lock = threading.Lock()
        self._free_host = list(range(num_host_blocks))

    def offload_blocks(self, block_ids: List[int]) -> Tuple[List[int], torch.cuda.Event]:
        stream = self._streams["d2h"]
        stream.wait_stream(self._streams["compute"])
        with self._lock:
            slots = [self._free_host.pop() for _ in block_ids]
        dsts = [self._host_pool[s].data_ptr() for s in slots]
        srcs = [self._primary[b].data_ptr() for b in block_ids]
        batch_copy_d2h(dsts, srcs, [BLOCK_BYTES] * len(slots), self._attr, stream)
        done = torch.cuda.Event()
        done.record(stream)
        return slots, done

    def _release_slot(self, slot: int, _future) -> None:
        with self._lock:
            self._free_host.append(slot)

    def evict_to_disk(self, block_ids: List[int], paths: List[str]):
        slots, done = self.offload_blocks(block_ids)
        futures = []
        for slot, path in zip(slots, paths):
            fut = self._spiller.submit(path, self._host_pool[slot], done)
            fut.add_done_callback(partial(self._release_slot, slot))
            futures.append(fut)
        return futures
