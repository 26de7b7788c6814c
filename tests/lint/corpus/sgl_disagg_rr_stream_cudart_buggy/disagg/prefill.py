"""Prefill worker: after each forward, requests whose prompt is complete are handed to the
staging sender together with an event marking the end of the forward."""

import torch

from disagg.memory_pool import MHATokenToKVPool
from disagg.staging import StagingKVSender, TransferKVChunk


class PrefillWorker:
    def __init__(self, model, kv_pool: MHATokenToKVPool, transfer_engine):
        self.model = model
        self.kv_pool = kv_pool
        self.sender = StagingKVSender(kv_pool, transfer_engine, slot_pages=512)
        self.inflight = {}

    @torch.inference_mode()
    def run_batch(self, batch):
        logits = self.model(batch.input_ids, batch.out_cache_loc, self.kv_pool)
        kv_ready = torch.cuda.Event()
        kv_ready.record()
        for req in batch.reqs:
            if req.is_last_chunk:
                chunk = TransferKVChunk(req.bootstrap_room, req.page_indices, kv_ready)
                self.inflight[req.rid] = self.sender.send(chunk)
        return logits.argmax(dim=-1)

    def poll_finished(self):
        done = [rid for rid, fut in self.inflight.items() if fut.done()]
        for rid in done:
            self.inflight.pop(rid).result()
        return done
