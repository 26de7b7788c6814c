"""Prefill scheduler: requests whose last chunk is in the batch have their KV sent to the
decode instance as soon as the decoder stack has written it, overlapping the transfer
with the LM head and sampling."""

from typing import List, Tuple

import torch

from disagg.kv_sender import HostStagedKVSender, TransferKVChunk
from disagg.memory_pool import MHATokenToKVPool
from disagg.model import CausalLM


class PrefillScheduler:
    def __init__(self, model: CausalLM, kv_pool: MHATokenToKVPool, transfer_engine):
        self.model = model
        self.kv_pool = kv_pool
        self.sender = HostStagedKVSender(kv_pool, transfer_engine, max_pages=1024)
        self._to_send: List[Tuple[int, List[int]]] = []
        # fires once the last decoder layer is reached: every layer's KV is queued by then
        self.model.layers[-1].register_forward_pre_hook(self._kv_written_hook)

    def _kv_written_hook(self, module, args):
        if not self._to_send:
            return
        kv_ready = torch.cuda.Event()
        kv_ready.record()
        for room, pages in self._to_send:
            self.sender.add(TransferKVChunk(room, pages, kv_ready))
        self._to_send = []

    @torch.inference_mode()
    def run_batch(self, batch):
        self._to_send = [(req.bootstrap_room, req.page_indices)
                         for req in batch.reqs if req.is_last_chunk]
        logits = self.model(batch.input_ids, batch.out_cache_loc, self.kv_pool)
        return logits.argmax(dim=-1)
