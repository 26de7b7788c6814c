# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
import queue
import threading
from typing import Callable, Dict, Optional

from .inference_request import InferenceRequest, Status, StepOutput
from .token_buffers import PinnedTokenRing

logger = logging.getLogger(__name__)


class DetokenizeWorker(threading.Thread):
    """Turns staged token ids into text off the critical path and streams them to callers."""

    def __init__(
        self,
        outputs: "queue.Queue[Optional[StepOutput]]",
        tokenizer,
        ring: PinnedTokenRing,
        requests: Dict[str, InferenceRequest],
        on_text: Optional[Callable[[str, str], None]] = None,
    ):
        super().__init__(name="mcore-detokenize", daemon=True)
        self.outputs = outputs
        self.tokenizer = tokenizer
        self.ring = ring
        self.requests = requests
        self.on_text = on_text

    def run(self) -> None:
        while True:
            item = self.outputs.get()
            if item is None:
                break
            item.ready.synchronize()
            # expect: KVG003
            token_ids = item.host_tokens[: item.num_tokens].tolist()
            self.ring.release(item.slot)
            for request_id, token_id in zip(item.request_ids, token_ids):
                request = self.requests[request_id]
                request.generated_tokens.append(token_id)
                piece = self.tokenizer.detokenize([token_id])
                request.generated_text += piece
                if self.on_text is not None:
                    self.on_text(request_id, piece)
                done = token_id == request.termination_id
                if done or len(request.generated_tokens) >= request.num_tokens_to_generate:
                    request.status = Status.COMPLETED
            self.outputs.task_done()
        logger.debug("detokenize worker exiting")
