import logging
from typing import Dict, List, Tuple

import numpy as np
import torch

from .disk_device import StoreJob, TorchDisk

logger = logging.getLogger(__name__)


class DiskKVStore:
    """Per-layer key/value cache home on disk for throughput-oriented generation."""

    def __init__(self, disk: TorchDisk, dtype: torch.dtype = torch.float16):
        self.disk = disk
        self.dtype = dtype
        self._pending: Dict[int, List[StoreJob]] = {}
        self._shapes: Dict[int, Tuple[torch.Size, torch.Size]] = {}

    def store_layer(self, layer_idx: int, key: torch.Tensor, value: torch.Tensor) -> None:
        self._shapes[layer_idx] = (key.shape, value.shape)
        self._pending[layer_idx] = [
            self.disk.store_async(key, f"layer{layer_idx}_k"),
            self.disk.store_async(value, f"layer{layer_idx}_v"),
        ]

    def _wait_layer(self, layer_idx: int) -> None:
        for job in self._pending.pop(layer_idx, []):
            job.flushed.wait()
            job.future.result()

    def load_layer(self, layer_idx: int, device: torch.device) -> Tuple[torch.Tensor, torch.Tensor]:
        self._wait_layer(layer_idx)
        k_shape, v_shape = self._shapes[layer_idx]
        np_dtype = np.float16 if self.dtype == torch.float16 else np.float32
        out = []
        for suffix, shape in (("k", k_shape), ("v", v_shape)):
            arr = np.fromfile(self.disk.file_for(f"layer{layer_idx}_{suffix}"), dtype=np_dtype)
            host = torch.from_numpy(arr).view(shape).pin_memory()
            out.append(host.to(device, non_blocking=True))
        return out[0], out[1]

    def flush(self) -> None:
        for layer_idx in list(self._pending):
            self._wait_layer(layer_idx)
