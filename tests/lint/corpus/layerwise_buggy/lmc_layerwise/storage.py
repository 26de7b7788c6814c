# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple
import threading

# Third Party
import torch


@dataclass
class MemoryObj:
    tensor: torch.Tensor
    fmt: str


class LocalCPUBackend:
    """Pinned host store of per-layer KV chunks, keyed by (chunk_hash, layer)."""

    def __init__(self):
        self._data: Dict[Tuple[str, int], MemoryObj] = {}
        self._lock = threading.Lock()

    def put(self, chunk_hash: str, layer_id: int, memory_obj: MemoryObj) -> None:
        with self._lock:
            self._data[(chunk_hash, layer_id)] = memory_obj

    def contains(self, chunk_hash: str) -> bool:
        with self._lock:
            return (chunk_hash, 0) in self._data

    def get_layer(self, chunk_hashes: List[str], layer_id: int) -> List[MemoryObj]:
        out: List[MemoryObj] = []
        with self._lock:
            for chunk_hash in chunk_hashes:
                obj: Optional[MemoryObj] = self._data.get((chunk_hash, layer_id))
                if obj is None:
                    raise KeyError(f"layer {layer_id} of {chunk_hash} was evicted")
                out.append(obj)
        return out
