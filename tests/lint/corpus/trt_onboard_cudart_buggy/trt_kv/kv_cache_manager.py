"""KV cache manager with block reuse across a device pool and a host pool: a new context
request whose prefix blocks were offloaded gets fresh primary blocks onboarded from the host
before its forward; finished requests offload their blocks to the host (so a later request
with the same prefix can reuse them) and give them back to the free list."""

from typing import Dict, List

from trt_kv.pools import BlockPool
from trt_kv.transfer_manager import KVCacheTransferManager


class KVCacheManager:
    def __init__(self, num_primary: int, num_secondary: int, block_bytes: int, runtime_stream):
        self.primary = BlockPool(num_primary, block_bytes, on_device=True)
        self.secondary = BlockPool(num_secondary, block_bytes, on_device=False)
        self.transfer_manager = KVCacheTransferManager(self.primary, self.secondary)
        self.runtime_stream = runtime_stream
        self.offloaded: Dict[int, int] = {}  # prefix hash -> secondary block
        self.blocks: Dict[int, List[int]] = {}  # request id -> primary blocks
        self.hashes: Dict[int, List[int]] = {}  # request id -> block hashes

    def prepare_resources(self, scheduled_batch) -> None:
        for req in scheduled_batch.context_requests:
            blocks = []
            for block_hash in req.block_hashes:
                primary_block = self.primary.allocate()
                secondary_block = self.offloaded.get(block_hash)
                if secondary_block is not None:
                    self.transfer_manager.onboard(secondary_block, primary_block)
                blocks.append(primary_block)
            self.blocks[req.request_id] = blocks
            self.hashes[req.request_id] = list(req.block_hashes)
        self.transfer_manager.sync_transfers(self.runtime_stream)

    def free_resources(self, request) -> None:
        hashes = self.hashes.pop(request.request_id, [])
        for block_hash, block_id in zip(hashes, self.blocks.pop(request.request_id, [])):
            if block_hash not in self.offloaded and self.secondary.free_blocks:
                secondary_block = self.secondary.allocate()
                self.transfer_manager.offload(block_id, secondary_block, self.runtime_stream)
                self.offloaded[block_hash] = secondary_block
            self.primary.release(block_id)
