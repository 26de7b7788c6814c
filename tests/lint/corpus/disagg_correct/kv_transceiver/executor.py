import logging
from collections import deque
from typing import Deque, Dict, List

import torch

from .transceiver import KvCacheTransceiver

logger = logging.getLogger("tensorrt_llm")


class DisaggExecutor:
    """One step of a context-only or generation-only server."""

    def __init__(self, model_engine, transceiver: KvCacheTransceiver,
                 num_blocks: int, is_context_server: bool):
        self.model_engine = model_engine
        self.transceiver = transceiver
        self.is_context_server = is_context_server
        self._free: Deque[int] = deque(range(num_blocks))
        self._owned: Dict[int, List[int]] = {}

    def _allocate(self, request) -> List[int]:
        blocks = [self._free.popleft() for _ in range(request.num_blocks)]
        self._owned[request.py_request_id] = blocks
        return blocks

    def _release(self, request) -> None:
        self._free.extend(self._owned.pop(request.py_request_id, []))

    @torch.inference_mode()
    def step(self, scheduled_batch) -> None:
        for request in scheduled_batch.context_requests:
            self._allocate(request)
        self.model_engine.forward(scheduled_batch, self._owned)
        for request in scheduled_batch.generation_requests:
            if request.is_finished:
                self._release(request)
        if self.is_context_server:
            for request in scheduled_batch.context_requests:
                self.transceiver.respond_and_send(request, self._owned[request.py_request_id])
                self._release(request)
        else:
            for request in scheduled_batch.incoming_requests:
                blocks = self._allocate(request)
                self.transceiver.receive_into(request, blocks)
