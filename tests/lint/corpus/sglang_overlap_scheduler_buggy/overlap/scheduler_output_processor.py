from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from sglang.srt.managers.schedule_batch import ScheduleBatch

    from .tp_worker_overlap_thread import TpModelWorkerClient


class SchedulerOutputProcessorMixin:
    tp_worker: "TpModelWorkerClient"
    enable_overlap: bool

    def process_batch_result_decode(self, batch: "ScheduleBatch",
                                    launch_done: Optional[threading.Event] = None) -> None:
        logits_output, next_token_ids, _ = self.tp_worker.resolve_last_batch_result(launch_done)
        # expect: KVG003
        next_token_ids = next_token_ids.tolist()
        next_token_logprobs = logits_output.next_token_logprobs

        for i, (req, next_token_id) in enumerate(zip(batch.reqs, next_token_ids)):
            if req.is_retracted:
                continue
            if self.enable_overlap and req.finished():
                # Already finished in the previous step; the overlap thread
                # ran one extra decode for it.
                continue
            req.output_ids.append(next_token_id)
            req.check_finished()
            if req.return_logprob and next_token_logprobs is not None:
                req.output_token_logprobs_val.append(next_token_logprobs[i])
                req.output_token_logprobs_idx.append(next_token_id)
            if req.finished():
                self.tree_cache.cache_finished_req(req)

        self.stream_output(batch.reqs, batch.return_logprob)
