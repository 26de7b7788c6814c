import logging
from typing import Optional

import torch

logger = logging.getLogger(__name__)


def create_prefetch_stream(device: torch.device) -> Optional["torch.cuda.Stream"]:
    """Returns a dedicated stream for host-to-device prefetches, or None when prefetching cannot overlap."""
    if device.type != "cuda" or not torch.cuda.is_available():
        logger.info("Prefetch stream disabled for device %s", device)
        return None
    return torch.cuda.Stream(device=device)
