import logging
from typing import List, Tuple

import torch

from .cache_config import OffloadedCacheConfig

logger = logging.getLogger(__name__)

NUM_DEVICE_SLOTS = 2


def allocate_host_cache(config: OffloadedCacheConfig) -> Tuple[List[torch.Tensor], List[torch.Tensor]]:
    keys, values = [], []
    for _ in range(config.num_hidden_layers):
        keys.append(torch.zeros(config.layer_shape, dtype=config.dtype, device=config.offload_device, pin_memory=True))
        values.append(torch.zeros(config.layer_shape, dtype=config.dtype, device=config.offload_device, pin_memory=True))
    size_gb = 2 * config.num_hidden_layers * keys[0].numel() * keys[0].element_size() / 2**30
    logger.info("Allocated %.2f GiB of pinned host memory for the offloaded cache", size_gb)
    return keys, values


def allocate_device_slots(config: OffloadedCacheConfig) -> Tuple[List[torch.Tensor], List[torch.Tensor]]:
    keys = [torch.zeros(config.layer_shape, dtype=config.dtype, device=config.device) for _ in range(NUM_DEVICE_SLOTS)]
    values = [torch.zeros(config.layer_shape, dtype=config.dtype, device=config.device) for _ in range(NUM_DEVICE_SLOTS)]
    return keys, values


def slot_for_layer(layer_idx: int) -> int:
    return layer_idx % NUM_DEVICE_SLOTS
