"""KV cache manager as the PyExecutor's resource manager: before each iteration it allocates
blocks for the scheduled context requests, offloading evicted blocks and onboarding reused
ones."""

from .block_manager import BlockManager, TransferPlan
from .pools import PoolConfig, PrimaryPool, SecondaryPool
from .transfer_manager import KVCacheTransferManager


class KVCacheManager:
    def __init__(self, cfg: PoolConfig):
        self.primary = PrimaryPool(cfg)
        self.secondary = SecondaryPool(cfg)
        self.block_manager = BlockManager(cfg.num_primary_blocks, cfg.num_secondary_blocks)
        self.transfer_manager = KVCacheTransferManager(self.primary, self.secondary)
        self.block_tables = {}

    def prepare_resources(self, scheduled_batch):
        plan = TransferPlan()
        for req in scheduled_batch.context_requests:
            self.block_tables[req.py_request_id] = self.block_manager.allocate(
                plan, req.block_hashes)
        if plan.offloads or plan.onboards:
            # an evicted block may still be written by the iteration in flight, and a block
            # taken for onboarding may still be read by it
            self.transfer_manager.sync_with_compute()
        for gpu_block, host_block in plan.offloads:
            self.transfer_manager.offload(gpu_block, host_block)
        for gpu_block, host_block in plan.onboards:
            self.transfer_manager.onboard(gpu_block, host_block)
        if plan.onboards:
            self.transfer_manager.sync_transfers()

    def free_resources(self, request):
        blocks = self.block_tables.pop(request.py_request_id)
        self.block_manager.release(request.block_hashes, blocks)
