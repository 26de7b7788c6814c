"""L3 storage backends of the hierarchical cache: a backend stores and fetches host pages by
key. Backends register themselves with the factory under the name the server flag uses."""

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

import torch


@dataclass
class HiCacheStorageConfig:
    tp_rank: int = 0
    tp_size: int = 1
    model_name: Optional[str] = None
    extra_config: Dict[str, Any] = field(default_factory=dict)


class HiCacheStorage(ABC):

    @abstractmethod
    def batch_set(self, keys: List[str], values: List[torch.Tensor]) -> bool:
        """Store each host page under its key."""

    @abstractmethod
    def batch_get(self, keys: List[str], target_locations: List[torch.Tensor]) -> List[bool]:
        """Fill each target host page from storage; False where the key is missing."""

    @abstractmethod
    def exists(self, key: str) -> bool:
        ...


class StorageBackendFactory:
    _registry: Dict[str, Callable[[HiCacheStorageConfig], HiCacheStorage]] = {}

    @classmethod
    def register(cls, name: str):
        def wrap(backend_cls):
            cls._registry[name] = backend_cls
            return backend_cls
        return wrap

    @classmethod
    def create_backend(cls, name: str, config: HiCacheStorageConfig) -> HiCacheStorage:
        if name not in cls._registry:
            raise ValueError(f"unknown hicache storage backend {name!r}; known: {sorted(cls._registry)}")
        return cls._registry[name](config)
