"""The prefill scheduler's disaggregation side (the shape of
SchedulerDisaggregationPrefillMixin): chunked prefill sends each chunk's KV as soon as the
chunk has been scheduled, so the transfer overlaps the next chunk's forward."""

import torch


class SchedulerDisaggregationPrefillMixin:
    """Needs ``self.model_runner``, ``self.kv_pool`` and ``self.chunked_req``."""

    def send_kv_chunk(self, req, last_chunk: bool = False) -> None:
        start = req.start_send_idx
        end = len(req.fill_ids) if last_chunk else (len(req.fill_ids) // self.kv_pool.page_size) * self.kv_pool.page_size
        page_size = self.kv_pool.page_size
        pages = req.page_table[start // page_size:(end + page_size - 1) // page_size]
        if not pages:
            return
        req.disagg_kv_sender.send(pages, last_chunk)
        req.start_send_idx = end

    @torch.no_grad()
    def run_batch_disagg_prefill(self, batch):
        logits = self.model_runner.forward(batch, self.kv_pool)
        next_token_ids = torch.argmax(logits[:, -1], dim=-1)
        if self.chunked_req is not None:
            # an unfinished chunked request: ship what this chunk computed
            self.send_kv_chunk(self.chunked_req)
        for req in batch.reqs:
            if req is not self.chunked_req:
                self.send_kv_chunk(req, last_chunk=True)
        return next_token_ids
