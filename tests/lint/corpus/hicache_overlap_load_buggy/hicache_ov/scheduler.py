"""Overlap event loop: the result of step N is processed after step N+1 has been launched,
so a request that finished at step N is freed while step N+1's forward may still read its
pages, and those pages can be handed to a host-cache load of step N+2."""

import torch

from hicache_ov.cache_controller import HiCacheController
from hicache_ov.memory_pool import (MHATokenToKVPool, MHATokenToKVPoolHost,
                                    PagedTokenToKVPoolAllocator)
from hicache_ov.model_runner import ForwardBatch, ModelRunner


class Scheduler:
    def __init__(self, model, server_args, recv_requests):
        self.recv_requests = recv_requests
        self.token_to_kv_pool = MHATokenToKVPool(server_args.max_total_tokens,
                                                 server_args.page_size, torch.bfloat16,
                                                 server_args.num_kv_heads, server_args.head_dim,
                                                 server_args.num_layers)
        self.allocator = PagedTokenToKVPoolAllocator(self.token_to_kv_pool)
        self.model_runner = ModelRunner(model, self.token_to_kv_pool)
        host_pool = MHATokenToKVPoolHost(self.token_to_kv_pool, server_args.hicache_ratio)
        self.cache_controller = HiCacheController(self.allocator, host_pool)
        self.last_result = None

    def get_next_batch_to_run(self, reqs):
        for req in reqs:
            if req.host_hit_pages:
                req.device_pages = self.cache_controller.load(req.host_hit_pages)
        producer_id = self.cache_controller.start_loading()
        self.cache_controller.layer_done_counter.set_consumer(producer_id)
        out_pages = self.allocator.alloc(len(reqs))
        page_size = self.allocator.page_size
        return ForwardBatch(
            input_ids=torch.tensor([r.last_token_id for r in reqs], device="cuda"),
            positions=torch.tensor([r.seq_len for r in reqs], device="cuda"),
            out_cache_loc=torch.tensor(out_pages, device="cuda") * page_size,
            reqs=reqs,
        )

    def process_batch_result(self, batch: ForwardBatch, result) -> None:
        next_token_ids_cpu, copy_done = result
        copy_done.synchronize()
        for req, token_id in zip(batch.reqs, next_token_ids_cpu.tolist()):
            req.output_ids.append(token_id)
            if req.finished():
                self.allocator.free(req.device_pages)

    def event_loop_overlap(self) -> None:
        while True:
            reqs = self.recv_requests()
            batch = self.get_next_batch_to_run(reqs) if reqs else None
            result = self.model_runner.forward(batch) if batch is not None else None
            if self.last_result is not None:
                self.process_batch_result(*self.last_result)
            self.last_result = (batch, result) if batch is not None else None
