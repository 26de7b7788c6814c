from __future__ import annotations

import logging

from sgl_overlap.constants import SPEC_ALGORITHM_NONE, SPEC_NUM_DRAFT_TOKENS
from sgl_overlap.copy_utils import HostCopyResult

logger = logging.getLogger(__name__)


class SchedulerOutputProcessorMixin:
    """Consumes worker outputs on the scheduler thread."""

    spec_num_total_accepted_tokens: int = 0
    spec_num_total_forward_ct: int = 0

    def process_batch_result_decode(self, batch, host: HostCopyResult) -> None:
        is_spec = batch.spec_algorithm != SPEC_ALGORITHM_NONE
        if is_spec:
            self._update_spec_metrics(host)
        host.copy_done.synchronize()

        next_token_ids = host.next_token_ids.tolist()
        accept_lens = host.accept_lens.tolist() if is_spec else None
        stride = SPEC_NUM_DRAFT_TOKENS if is_spec else 1
        for i, req in enumerate(batch.reqs):
            if req.finished():
                continue
            num_new = accept_lens[i] + 1 if is_spec else 1
            req.output_ids.extend(next_token_ids[i * stride : i * stride + num_new])
            req.check_finished()
            if req.finished():
                self.tree_cache.cache_finished_req(req)
        self.stream_output(batch.reqs)

    def _update_spec_metrics(self, host: HostCopyResult) -> None:
        # expect: KVG003
        num_accepted = int(host.accept_lens.sum())
        self.spec_num_total_accepted_tokens += num_accepted + host.accept_lens.numel()
        self.spec_num_total_forward_ct += host.accept_lens.numel()
        if self.spec_num_total_forward_ct % 1000 == 0:
            logger.info(
                "spec accept length: %.2f",
                self.spec_num_total_accepted_tokens / self.spec_num_total_forward_ct,
            )
