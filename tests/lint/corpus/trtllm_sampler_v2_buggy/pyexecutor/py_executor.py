import queue
import threading
from typing import Callable, List, Optional

import torch

from tensorrt_llm.logger import logger

from .llm_request import LlmRequest, LlmRequestState
from .sampler import TorchSampler
from .sampler_types import SampleState

_SHUTDOWN = object()


class PyExecutor:
    """Executor loop: forward + sample on the GPU, token bookkeeping on a
    separate response thread so the next forward can be launched early."""

    def __init__(
        self,
        model_engine: Callable[[List[LlmRequest]], torch.Tensor],
        sampler: TorchSampler,
        response_callback: Callable[[LlmRequest], None],
    ):
        self.model_engine = model_engine
        self.sampler = sampler
        self.response_callback = response_callback
        self.execution_stream = torch.cuda.Stream()
        self._state_queue: "queue.Queue[object]" = queue.Queue(maxsize=2)
        self._response_thread: Optional[threading.Thread] = None

    def start(self) -> None:
        self._response_thread = threading.Thread(
            target=self._response_loop, name="trtllm-responses", daemon=True
        )
        self._response_thread.start()

    def shutdown(self) -> None:
        self._state_queue.put(_SHUTDOWN)
        if self._response_thread is not None:
            self._response_thread.join()

    def step(self, requests: List[LlmRequest]) -> None:
        with torch.cuda.stream(self.execution_stream):
            logits = self.model_engine(requests)
            state = self.sampler.sample_async(requests, logits)
        self._state_queue.put(state)

    def _response_loop(self) -> None:
        while True:
            item = self._state_queue.get()
            if item is _SHUTDOWN:
                return
            assert isinstance(item, SampleState)
            try:
                self.sampler.update_requests(item)
            except Exception:
                logger.error("update_requests failed")
                raise
            for req in item.requests:
                if req.state == LlmRequestState.GENERATION_COMPLETE:
                    self.response_callback(req)
