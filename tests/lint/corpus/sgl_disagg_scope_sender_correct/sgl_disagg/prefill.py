"""Prefill scheduler of a disaggregated deployment: runs a batch's forward on the forward
stream and starts shipping the KV of every request whose prompt is complete."""

import torch

from sgl_disagg.batch_scope import PrefillBatchScope
from sgl_disagg.kv_sender import StagingKVSender
from sgl_disagg.memory_pool import MHATokenToKVPool


class PrefillScheduler:
    def __init__(self, model_runner, transport, server_args):
        self.model_runner = model_runner
        self.token_to_kv_pool = MHATokenToKVPool(
            server_args.max_total_tokens, server_args.page_size, server_args.num_kv_heads,
            server_args.head_dim, server_args.num_layers,
        )
        self.forward_stream = torch.cuda.Stream()
        self.kv_sender = StagingKVSender(self.token_to_kv_pool, transport)
        self.inflight = {}
        self.metrics = []

    def run_batch(self, batch):
        with torch.cuda.stream(self.forward_stream), PrefillBatchScope(batch) as scope:
            logits = self.model_runner.forward(batch.input_ids, batch.positions,
                                               self.token_to_kv_pool)
            next_token_ids = torch.argmax(logits, dim=-1)
        # done_event is recorded when the scope closes: only hand it out after that
        for req in batch.reqs:
            if req.is_chunked:
                continue
            self.inflight[req.rid] = self.kv_sender.send(req.rid, req.page_indices,
                                                         scope.done_event)
        self.metrics.append(scope.t_launch)
        return next_token_ids

    def poll_transfers(self):
        done = [rid for rid, fut in self.inflight.items() if fut.done()]
        for rid in done:
            self.inflight.pop(rid).result()
        return done
