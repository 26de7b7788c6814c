"""Prefill scheduler of a PD-disaggregated deployment: admitted requests get a sender job,
the batch runs, and the finished prefills are committed to the sender."""

import torch

from sgl_pd.kv_sender import StagingKVSender
from sgl_pd.memory_pool import MHATokenToKVPool, ReqToTokenPool
from sgl_pd.transport import TcpKVTransport


class PrefillScheduler:
    def __init__(self, model_runner, server_args, model_config, gpu_id: int):
        device = f"cuda:{gpu_id}"
        self.model_runner = model_runner
        self.waiting_queue = []
        self.forward_stream = torch.cuda.Stream(device=device)
        self.req_to_token_pool = ReqToTokenPool(server_args.max_running_requests, server_args.context_len, device)
        self.token_to_kv_pool = MHATokenToKVPool(
            server_args.max_total_tokens, model_config.num_kv_heads, model_config.head_dim,
            model_config.num_layers, torch.bfloat16, device,
        )
        transport = TcpKVTransport(server_args.decode_addr, server_args.decode_port)
        self.kv_sender = StagingKVSender(self.token_to_kv_pool, server_args.context_len, transport)

    def get_new_batch_prefill(self):
        batch = self.model_runner.schedule(self.waiting_queue)
        if batch is None:
            return None
        for req in batch.reqs:
            kv_indices = self.req_to_token_pool.req_to_token[req.req_pool_idx, : len(req.fill_ids)]
            self.kv_sender.prepare(req.bootstrap_room, kv_indices)
        return batch

    def process_batch_result_disagg_prefill(self, batch) -> None:
        for req in batch.reqs:
            self.kv_sender.commit(req.bootstrap_room)

    def event_loop_normal_disagg_prefill(self) -> None:
        torch.cuda.set_stream(self.forward_stream)
        while True:
            self.waiting_queue.extend(self.model_runner.recv_requests())
            batch = self.get_new_batch_prefill()
            if batch is None:
                continue
            self.model_runner.forward(batch, self.token_to_kv_pool)
            self.process_batch_result_disagg_prefill(batch)
