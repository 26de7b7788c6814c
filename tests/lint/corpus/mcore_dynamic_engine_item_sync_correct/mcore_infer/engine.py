"""The engine loop, in the shape of ``DynamicInferenceEngine.step``: one forward for all active
requests, then the sampled tokens go to the host for streaming on a side stream while the compute
stream gets on with the next step."""

import torch

from .context import DynamicInferenceContext
from .controller import TextGenerationController


class DynamicInferenceEngine:
    def __init__(self, controller: TextGenerationController, context: DynamicInferenceContext,
                 termination_id: int, on_token=None):
        self.controller = controller
        self.context = context
        self.termination_id = termination_id
        self.on_token = on_token
        self.streams = {"d2h": torch.cuda.Stream(device=context.device)}
        self.host_tokens = torch.empty(context.max_requests, dtype=torch.int64, pin_memory=True)
        self.host_request_ids = torch.empty(context.max_requests, dtype=torch.int64, pin_memory=True)
        self.copy_done = torch.cuda.Event()
        self._pending_count = 0
        self._last_count = 0

    def _emit_pending(self):
        """Hand the previous step's tokens to the streaming callback."""
        if not self._pending_count:
            return
        self.copy_done.synchronize()
        n, self._pending_count = self._pending_count, 0
        if self.on_token is None:
            return
        for request_id, token in zip(self.host_request_ids[:n].tolist(), self.host_tokens[:n].tolist()):
            self.on_token(request_id, token)

    def _retire_finished(self):
        # compaction rewrites the rows the last step's D2H copies read
        torch.cuda.current_stream().wait_event(self.copy_done)
        self.context.compact(self._last_count)

    def step(self) -> int:
        self._emit_pending()
        if self.context.total_request_count == 0:
            return 0

        logits = self.controller.forward(self.context)
        sampled = self.controller.sample(logits)
        n = self.context.update_requests(sampled, self.termination_id)
        # the host needs the finished count to decide on compaction; this .item() blocks until
        # the compute stream has run update_requests, so the D2H copies below read this step's
        # rows without a stream wait
        finished_count = int(self.context.finished[:n].sum().item())

        with torch.cuda.stream(self.streams["d2h"]):
            self.host_tokens[:n].copy_(self.context.new_tokens[:n], non_blocking=True)
            self.host_request_ids[:n].copy_(self.context.request_ids[:n], non_blocking=True)
            self.copy_done.record()
        self._pending_count = n
        self._last_count = n
        if finished_count > 0:
            self._retire_finished()
        return n

    def run(self):
        while self.step():
            pass
        self._emit_pending()
