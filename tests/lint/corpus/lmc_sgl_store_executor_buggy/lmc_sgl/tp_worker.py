"""SGLang TP worker with the LMCache store hook: the forward runs on the worker's own stream
and finished prefills are handed to LMCache right after it is launched."""

import torch

from lmc_sgl.cache_engine import LMCacheEngine
from lmc_sgl.config import LMCacheEngineConfig
from lmc_sgl.gpu_connector import SGLangGPUConnector
from lmc_sgl.memory import MHATokenToKVPool, PinnedChunkAllocator


class TpModelWorker:
    def __init__(self, model_runner, model_config, gpu_id: int, max_total_tokens: int):
        self.device = torch.device(f"cuda:{gpu_id}")
        self.model_runner = model_runner
        self.forward_stream = torch.cuda.Stream(device=self.device)
        self.token_to_kv_pool = MHATokenToKVPool(
            max_total_tokens, model_config.num_kv_heads, model_config.head_dim,
            model_config.num_layers, torch.bfloat16, f"cuda:{gpu_id}",
        )
        cfg = LMCacheEngineConfig()
        allocator = PinnedChunkAllocator(
            cfg.local_cpu_chunks, model_config.num_layers, cfg.chunk_size,
            model_config.num_kv_heads, model_config.head_dim, torch.bfloat16,
        )
        self.lmcache = LMCacheEngine(cfg, SGLangGPUConnector(model_config.num_layers, self.device), allocator)

    def forward_batch_generation(self, batch):
        with torch.cuda.stream(self.forward_stream):
            logits = self.model_runner.forward(batch, self.token_to_kv_pool)
            next_token_ids = torch.argmax(logits, dim=-1)
            for req in batch.reqs:
                if req.is_prefill_done():
                    self.lmcache.store(req.fill_ids, req.kv_indices, self.token_to_kv_pool)
        return next_token_ids
