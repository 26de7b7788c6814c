import logging
import queue
import threading
from typing import Any, Optional, Protocol

import torch

from .constants import RESPONSE_QUEUE_DEPTH
from .host_copy import HostCopier
from .sampler import SampleState, TorchSampler

logger = logging.getLogger(__name__)


class ModelEngine(Protocol):

    def forward(self, scheduled_requests: list[Any]) -> dict[str, torch.Tensor]:
        ...


class PyExecutor:

    def __init__(self,
                 model_engine: ModelEngine,
                 sampler: TorchSampler,
                 device_index: int = 0,
                 enable_iter_stats: bool = False):
        self.model_engine = model_engine
        self.sampler = sampler
        self.enable_iter_stats = enable_iter_stats
        self.iter_stats: list[int] = []
        self._copier = HostCopier(device_index)
        self._responses: "queue.Queue[Optional[SampleState]]" = queue.Queue(
            maxsize=RESPONSE_QUEUE_DEPTH)
        self._previous_state: Optional[SampleState] = None
        self._response_thread = threading.Thread(target=self._response_loop,
                                                 name="py-executor-responses",
                                                 daemon=True)

    def start(self) -> None:
        self._response_thread.start()

    def shutdown(self) -> None:
        self._responses.put(None)
        self._response_thread.join()

    def step(self, scheduled_requests: list[Any]) -> None:
        compute = torch.cuda.current_stream()
        if self._previous_state is not None:
            # the store tensors are reused every iteration
            compute.wait_event(self._previous_state.copy_event)
        outputs = self.model_engine.forward(scheduled_requests)
        ready = torch.cuda.Event()
        ready.record(compute)
        state = self.sampler.sample_async(scheduled_requests, outputs)
        state.host, state.copy_event = self._copier.launch(state.device, ready)
        if self.enable_iter_stats:
            # expect: KVG003
            self.iter_stats.append(int(state.host.new_tokens_lens.sum()))
        self._responses.put(state)
        self._previous_state = state

    def _response_loop(self) -> None:
        while True:
            state = self._responses.get()
            if state is None:
                break
            state.copy_event.synchronize()
            tokens = state.host.new_tokens[0, :, 0].tolist()
            for request in state.scheduled_requests:
                request.add_new_token(tokens[request.py_seq_slot], 0)
            logger.debug("handled %d responses",
                         len(state.scheduled_requests))
