import logging
from typing import Optional

import torch

logger = logging.getLogger(__name__)


def create_prefetch_stream(device: torch.device) -> Optional[torch.cuda.Stream]:
    """Side stream used to bring offloaded layers back while the model computes."""
    if device.type != "cuda":
        logger.warning("Offloaded cache prefetching needs a CUDA device, copies will be synchronous.")
        return None
    return torch.cuda.Stream(device=device)


def allocate_cache_tensor(shape, dtype: torch.dtype, device: torch.device, pin_memory: bool) -> torch.Tensor:
    if device.type == "cpu":
        return torch.zeros(shape, dtype=dtype, device=device, pin_memory=pin_memory)
    return torch.zeros(shape, dtype=dtype, device=device)
