import logging
from dataclasses import dataclass, field

import numpy as np
import torch

from .config import SimpleCPUOffloadConfig
from .worker import SimpleCPUOffloadWorker

logger = logging.getLogger(__name__)


@dataclass
class SimpleCPUOffloadMetadata:
    # req_id -> (src block ids, dst block ids)
    reqs_to_load: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    reqs_to_store: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


class SimpleCPUOffloadConnectorWorker:
    def __init__(self, extra_config: dict):
        self.config = SimpleCPUOffloadConfig.from_extra_config(extra_config)
        self.worker: SimpleCPUOffloadWorker | None = None
        self._load_event: torch.cuda.Event | None = None

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        self.worker = SimpleCPUOffloadWorker(self.config, kv_caches)
        logger.info("CPU offload: %d blocks per layer", self.config.num_cpu_blocks)

    @staticmethod
    def _gather(reqs: dict[str, tuple[np.ndarray, np.ndarray]]):
        req_ids = list(reqs)
        src = np.concatenate([reqs[r][0] for r in req_ids]).astype(np.int64)
        dst = np.concatenate([reqs[r][1] for r in req_ids]).astype(np.int64)
        return req_ids, src, dst

    def start_load_kv(self, metadata: SimpleCPUOffloadMetadata) -> None:
        if metadata.reqs_to_load:
            self._load_event = self.worker.load(*self._gather(metadata.reqs_to_load))

    def wait_for_layer_load(self, layer_name: str) -> None:
        if self._load_event is not None:
            torch.cuda.current_stream().wait_event(self._load_event)
            self._load_event = None

    def wait_for_save(self, metadata: SimpleCPUOffloadMetadata) -> None:
        if metadata.reqs_to_store:
            self.worker.store(*self._gather(metadata.reqs_to_store))

    def get_finished(self, finished_req_ids: set[str]) -> tuple[set[str], set[str]]:
        return self.worker.get_finished()
