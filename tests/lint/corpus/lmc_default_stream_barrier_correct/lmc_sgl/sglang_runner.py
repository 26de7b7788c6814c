"""SGLang-side integration: the overlap worker runs every forward on its own forward stream
and hands finished prompts to LMCache right after the forward is launched."""

import torch

from lmc_sgl.cache_engine import LMCacheEngine


class LMCacheOverlapWorker:
    def __init__(self, model_runner, token_to_kv_pool, lmcache_config):
        self.model_runner = model_runner
        self.kv_pool = token_to_kv_pool
        self.lmcache = LMCacheEngine(lmcache_config)
        self.forward_stream = torch.cuda.Stream()

    def forward_batch_generation(self, batch):
        with torch.cuda.stream(self.forward_stream):
            logits = self.model_runner.forward(batch, self.kv_pool)
            next_token_ids = torch.argmax(logits, dim=-1)
            for req in batch.reqs:
                if req.finished_prefill:
                    self.lmcache.store(req.fill_ids, self.kv_pool.k_buffer,
                                       self.kv_pool.v_buffer, req.slot_mapping)
            return next_token_ids
