# SPDX-License-Identifier: Apache-2.0
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

from .async_output import PendingLogprobs

logger = logging.getLogger(__name__)


@dataclass
class Logprob:
    logprob: float
    rank: int | None
    decoded_token: str


SampleLogprobs = dict[int, Logprob]


class LogprobsDetokenizer(threading.Thread):
    def __init__(
        self,
        tokenizer,
        in_queue: "queue.Queue[PendingLogprobs | None]",
        on_output: Callable[[str, SampleLogprobs], None],
    ):
        super().__init__(name="logprobs-detokenizer", daemon=True)
        self._tokenizer = tokenizer
        self._in = in_queue
        self._on_output = on_output

    def run(self) -> None:
        while True:
            pending = self._in.get()
            if pending is None:
                return
            try:
                self._process(pending)
            except Exception:
                logger.exception("failed to detokenize logprobs for %s", pending.req_ids)

    def _process(self, pending: PendingLogprobs) -> None:
        lists = pending.logprobs.tolists()
        for i, req_id in enumerate(pending.req_ids):
            token_ids = lists.logprob_token_ids[i]
            tokens = self._tokenizer.convert_ids_to_tokens(token_ids)
            sample: SampleLogprobs = {}
            for rank, (token_id, logprob, token) in enumerate(zip(token_ids, lists.logprobs[i], tokens)):
                # column 0 is the sampled token, which carries its true rank
                sample[token_id] = Logprob(logprob, lists.sampled_token_ranks[i] if rank == 0 else rank, token)
            self._on_output(req_id, sample)
