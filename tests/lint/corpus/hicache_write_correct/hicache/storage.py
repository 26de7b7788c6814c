import logging
import os

import torch

logger = logging.getLogger(__name__)


class HiCacheFile:
    def __init__(self, file_path: str):
        self.file_path = file_path
        os.makedirs(self.file_path, exist_ok=True)

    def set(self, key: str, value: torch.Tensor) -> bool:
        path = os.path.join(self.file_path, f"{key}.bin")
        if os.path.exists(path):
            return True
        try:
            torch.save(value, path)
        except OSError as e:
            logger.error("Failed to save page %s: %s", key, e)
            return False
        return True
