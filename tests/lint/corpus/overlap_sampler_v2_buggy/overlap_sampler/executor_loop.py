# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
import queue
import threading
from typing import Any, Callable, List, Optional

from tensorrt_llm.logger import logger

from .constants import MAX_INFLIGHT_SAMPLE_STATES
from .sampler import GreedyTorchSampler
from .state import SampleState


class OverlapExecutorLoop:
    """Forward pass N+1 is enqueued while the responses of pass N are produced on a side thread."""

    def __init__(self, model_engine: Any, sampler: GreedyTorchSampler,
                 on_responses: Callable[[List[Any]], None]):
        self._engine = model_engine
        self._sampler = sampler
        self._on_responses = on_responses
        self._states: "queue.Queue[Optional[SampleState]]" = queue.Queue(
            maxsize=MAX_INFLIGHT_SAMPLE_STATES)
        self._response_thread = threading.Thread(target=self._response_loop,
                                                 name="sampler_response", daemon=True)
        self._response_thread.start()

    def step(self, scheduled_requests: List[Any]) -> None:
        outputs = self._engine.forward(scheduled_requests)
        state = self._sampler.sample_async(scheduled_requests, outputs["logits"])
        self._states.put(state)

    def shutdown(self) -> None:
        self._states.put(None)
        self._response_thread.join()

    def _response_loop(self) -> None:
        while True:
            state = self._states.get()
            if state is None:
                break
            try:
                self._sampler.update_requests(state)
            except Exception:
                logger.error("failed to update requests from sample state")
                raise
            finished = [r for r in state.requests if r.is_finished]
            if finished:
                self._on_responses(finished)
