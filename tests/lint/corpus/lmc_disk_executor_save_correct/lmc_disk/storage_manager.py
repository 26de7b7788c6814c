import logging
from typing import List

import torch

from lmc_disk.config import LocalDiskConfig
from lmc_disk.gpu_connector import VLLMPagedMemGPUConnectorV2
from lmc_disk.local_disk_backend import LocalDiskBackend

logger = logging.getLogger(__name__)


class StorageManager:
    def __init__(self, config: LocalDiskConfig, gpu_connector: VLLMPagedMemGPUConnectorV2):
        self.config = config
        self.gpu_connector = gpu_connector
        self.disk_backend = LocalDiskBackend(config)

    def batched_put(self, keys: List[str], slot_mapping: torch.Tensor) -> int:
        size = self.config.chunk_size
        submitted = 0
        for i, key in enumerate(keys):
            if self.disk_backend.contains(key):
                continue
            slots = slot_mapping[i * size:(i + 1) * size]
            memory_obj = self.gpu_connector.allocate(slots.numel())
            self.gpu_connector.from_gpu(memory_obj, slots)
            self.disk_backend.submit_put_task(key, memory_obj)
            submitted += 1
        logger.info("submitted %d/%d chunks to local disk", submitted, len(keys))
        return submitted
