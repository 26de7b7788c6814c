"""Block-reuse KV cache manager: a context request whose prefix blocks were offloaded gets
fresh primary blocks onboarded from the secondary pool; a released request offloads the blocks
whose prefix is not on the host yet and records, per block, the event its next owner's onboard
must wait for. The event is recorded on the runtime stream the forwards run on, whatever stream
is current where ``free_resources`` is called (the executor calls it outside its stream block)."""

from collections import deque
from dataclasses import dataclass
from typing import Dict, List, Tuple

import torch

from trt_reuse.transfer_manager import KVCacheTransferManager


@dataclass
class KvCacheConfig:
    num_primary_blocks: int
    num_secondary_blocks: int
    block_bytes: int


class KVCacheManager:
    def __init__(self, config: KvCacheConfig, runtime_stream: torch.cuda.Stream):
        self.primary = torch.zeros((config.num_primary_blocks, config.block_bytes), dtype=torch.uint8, device="cuda")
        self.secondary = torch.zeros(
            (config.num_secondary_blocks, config.block_bytes), dtype=torch.uint8, pin_memory=True
        )
        self.transfer_manager = KVCacheTransferManager(self.primary, self.secondary)
        self.runtime_stream = runtime_stream
        self.free_primary = deque(range(config.num_primary_blocks))
        self.free_secondary = deque(range(config.num_secondary_blocks))
        self.offloaded: Dict[int, int] = {}  # block hash -> secondary block
        self.release_events: Dict[int, torch.cuda.Event] = {}  # primary block -> last use
        self.request_blocks: Dict[int, List[Tuple[int, int]]] = {}  # request -> (hash, block)

    def prepare_resources(self, scheduled_batch) -> None:
        for req in scheduled_batch.context_requests:
            blocks = []
            for block_hash in req.block_hashes:
                primary_block = self.free_primary.popleft()
                secondary_block = self.offloaded.get(block_hash)
                if secondary_block is not None:
                    last_use = self.release_events.pop(primary_block, None)
                    self.transfer_manager.onboard(secondary_block, primary_block, last_use)
                blocks.append((block_hash, primary_block))
            self.request_blocks[req.request_id] = blocks
        self.transfer_manager.sync_transfers(self.runtime_stream)

    def free_resources(self, request) -> None:
        released = self.runtime_stream.record_event()
        for block_hash, primary_block in self.request_blocks.pop(request.request_id, []):
            if block_hash not in self.offloaded and self.free_secondary:
                secondary_block = self.free_secondary.popleft()
                self.transfer_manager.offload(primary_block, secondary_block, released)
                self.offloaded[block_hash] = secondary_block
            self.release_events[primary_block] = released
            self.free_primary.append(primary_block)
