from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Any, Callable, NamedTuple, Optional

import torch

logger = logging.getLogger(__name__)
device_module = torch.get_device_module()


class L2Transfer(NamedTuple):
    host_pool: Any
    device_pool: Any
    host_indices: torch.Tensor
    device_indices: torch.Tensor


class TransferCompletion(NamedTuple):
    start_event: Any
    finish_event: Any


class L2TransferEngine:
    """Issues device<->host copies on dedicated streams."""

    def __init__(self, io_backend: str):
        self.io_backend = io_backend
        self.device_to_host_stream = device_module.Stream()
        self.host_to_device_stream = device_module.Stream()

    @contextmanager
    def _submission(self, stream, start_event=None):
        ack_start = device_module.Event()
        ack_finish = device_module.Event()
        if start_event is None:
            start_event = device_module.Event()
            start_event.record()
        with device_module.stream(stream):
            start_event.wait(stream)
            ack_start.record()
            yield TransferCompletion(ack_start, ack_finish)
            ack_finish.record()

    def submit_device_to_host(self, transfers: list[L2Transfer]) -> TransferCompletion:
        with self._submission(self.device_to_host_stream) as completion:
            for t in transfers:
                t.host_pool.backup_from_device_all_layer(
                    t.device_pool, t.host_indices, t.device_indices
                )
        return completion

    def submit_host_to_device(
        self,
        transfers: list[L2Transfer],
        *,
        layer_num: int,
        start_event=None,
        on_layer_done: Optional[Callable[[int], None]] = None,
    ) -> TransferCompletion:
        with self._submission(self.host_to_device_stream, start_event) as completion:
            for layer_id in range(layer_num):
                for t in transfers:
                    t.host_pool.load_to_device_per_layer(
                        t.device_pool, t.host_indices, t.device_indices, layer_id
                    )
                if on_layer_done is not None:
                    on_layer_done(layer_id)
        return completion
