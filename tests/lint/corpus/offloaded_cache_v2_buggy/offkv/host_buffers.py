from typing import Dict, Tuple

import torch

from .utils_logging import get_logger

logger = get_logger(__name__)


class HostKVPool:
    """Pinned host buffers, one key/value pair per layer, grown on demand."""

    def __init__(self, pin_memory: bool = True):
        self.pin_memory = pin_memory
        self._buffers: Dict[Tuple[int, str], torch.Tensor] = {}

    def acquire(self, layer_idx: int, kind: str, like: torch.Tensor) -> torch.Tensor:
        key = (layer_idx, kind)
        buf = self._buffers.get(key)
        if buf is None or buf.shape != like.shape or buf.dtype != like.dtype:
            logger.debug("allocating host buffer for layer %d (%s) %s", layer_idx, kind, tuple(like.shape))
            buf = torch.empty(like.shape, dtype=like.dtype, device="cpu", pin_memory=self.pin_memory)
            self._buffers[key] = buf
        return buf


def copy_to_host(dst: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    # expect: KVG001
    dst.copy_(src, non_blocking=True)
    return dst


def copy_to_device(src: torch.Tensor, device: torch.device) -> torch.Tensor:
    return src.to(device, non_blocking=True)
