# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple
import logging

# Third Party
import torch

# First Party
from kvretrieve.utils import get_device_module, make_ready_event, nbytes
from kvretrieve.worker import AsyncLoadWorker, LoadTask

logger = logging.getLogger(__name__)


@dataclass
class RetrieverConfig:
    num_layers: int
    block_size: int = 16
    device: Optional[str] = None
    stream_priority: int = -1


class LayerwiseRetriever:
    """Loads layer i while the model computes layer i - 1."""

    def __init__(self, config: RetrieverConfig, kvcaches: List[torch.Tensor]):
        self.config = config
        self.kvcaches = kvcaches
        self._dev_mod = get_device_module(config.device)
        self._load_stream = self._dev_mod.Stream(priority=config.stream_priority)
        self._worker = AsyncLoadWorker(self._dev_mod, self._load_stream)
        self._worker.start()
        self._inflight: Dict[int, LoadTask] = {}
        self._loaded_bytes = 0

    def submit_layer(
        self,
        layer_id: int,
        chunks: List[torch.Tensor],
        block_ranges: List[Tuple[int, int]],
    ) -> None:
        if layer_id in self._inflight:
            raise RuntimeError(f"layer {layer_id} is already being loaded")
        compute_stream = self._dev_mod.current_stream()
        task = LoadTask(
            layer_id=layer_id,
            kv_layer=self.kvcaches[layer_id],
            chunks=chunks,
            block_ranges=block_ranges,
            ready_event=make_ready_event(self._dev_mod, compute_stream),
            done_event=self._dev_mod.Event(),
        )
        self._inflight[layer_id] = task
        self._worker.submit(task)

    def wait_for_layer(self, layer_id: int) -> None:
        task = self._inflight.pop(layer_id)
        task.finished.wait()
        if task.error is not None:
            raise RuntimeError(f"failed to load layer {layer_id}") from task.error
        self._dev_mod.current_stream().wait_event(task.done_event)
        self._loaded_bytes += sum(nbytes(c) for c in task.chunks)
        logger.debug("Layer %d ready (%d bytes so far)", layer_id, self._loaded_bytes)

    def close(self) -> None:
        for layer_id in list(self._inflight):
            self.wait_for_layer(layer_id)
        self._worker.stop()
