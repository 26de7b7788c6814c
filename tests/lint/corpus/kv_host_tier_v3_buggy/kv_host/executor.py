import itertools
import logging
from typing import Dict, List

import torch

from .host_tier import HostTierSpiller
from .offload_manager import KVCacheHostOffloader

logger = logging.getLogger(__name__)


class PyExecutor:
    def __init__(
        self,
        model_engine,
        kv_cache_manager,
        offloader: KVCacheHostOffloader,
        spiller: HostTierSpiller,
    ):
        self.model_engine = model_engine
        self.kv_cache_manager = kv_cache_manager
        self.offloader = offloader
        self.spiller = spiller
        self.execution_stream = torch.cuda.Stream()
        self._job_ids = itertools.count()
        self._job_host_blocks: Dict[int, List[int]] = {}

    def _forward_step(self, scheduled_batch):
        with torch.cuda.stream(self.execution_stream):
            outputs = self.model_engine.forward(scheduled_batch, self.kv_cache_manager)
        self.offloader.mark_forward_done(torch.cuda.current_stream().cuda_stream)
        return outputs

    def _offload_evicted(self) -> None:
        block_pairs = self.kv_cache_manager.pop_evicted_block_pairs()
        if not block_pairs:
            return
        job_id = next(self._job_ids)
        self.offloader.offload(job_id, block_pairs)
        self.offloader.fence(self.execution_stream.cuda_stream)
        self._job_host_blocks[job_id] = [host for _, host in block_pairs]

    def _spill_cold_blocks(self) -> None:
        for job_id in self.offloader.poll_finished():
            host_blocks = self._job_host_blocks.pop(job_id)
            if self.kv_cache_manager.host_pool_pressure():
                self.spiller.spill(job_id, host_blocks)
                self.kv_cache_manager.release_host_blocks(host_blocks)
            self.offloader.release(job_id)

    def step(self, scheduled_batch):
        outputs = self._forward_step(scheduled_batch)
        self._offload_evicted()
        self._spill_cold_blocks()
        return outputs
