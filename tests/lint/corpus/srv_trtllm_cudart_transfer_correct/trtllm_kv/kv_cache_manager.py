"""The manager the executor calls once per step, before the forward."""

from trtllm_kv.block_pool import PrimaryPool, SecondaryPool
from trtllm_kv.cuda_utils import engine_stream
from trtllm_kv.transfer_manager import KVCacheTransferManager


class KVCacheManager:
    def __init__(self, config):
        self.config = config
        self.primary = PrimaryPool(config.max_primary_blocks, config.block_bytes)
        self.secondary = SecondaryPool(config.max_secondary_blocks, config.block_bytes)
        self.transfer = KVCacheTransferManager(self.primary, self.secondary)
        self.req_blocks = {}
        self.offloaded = {}

    def _take_primary(self, request_id, to_offload):
        if not self.primary.free_blocks:
            victim = self.primary.victim()
            owner = self.primary.lru[victim]
            host_block = self.secondary.acquire(owner)
            to_offload.append((victim, host_block))
            blocks = self.req_blocks[owner]
            self.offloaded.setdefault(owner, []).append((blocks.index(victim), host_block))
            self.primary.release(victim)
        return self.primary.acquire(request_id)

    def prepare_resources(self, scheduled_requests):
        to_offload, to_onboard = [], []
        for req in scheduled_requests:
            blocks = self.req_blocks.setdefault(req.request_id, [])
            for position, host_block in self.offloaded.pop(req.request_id, []):
                primary = self._take_primary(req.request_id, to_offload)
                blocks[position] = primary
                to_onboard.append((host_block, primary))
            while len(blocks) * self.config.tokens_per_block < req.num_tokens:
                blocks.append(self._take_primary(req.request_id, to_offload))
            for block in blocks:
                self.primary.touch(block)
        stream = engine_stream()
        if to_offload:
            self.transfer.offload(to_offload, stream)
        if to_onboard:
            self.transfer.onboard(to_onboard, stream)
        return {req.request_id: list(self.req_blocks[req.request_id]) for req in scheduled_requests}

    def free_resources(self, request):
        for block in self.req_blocks.pop(request.request_id, []):
            self.primary.release(block)
