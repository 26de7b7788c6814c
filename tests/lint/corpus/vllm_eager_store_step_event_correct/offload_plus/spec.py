"""Offloading specs, registered by name; the connector's extra config picks one."""

from abc import ABC, abstractmethod
from typing import ClassVar, Dict, Iterator, Tuple, Type

import torch

from offload_plus.handlers import CpuToGpuHandler, GpuToCpuHandler, TransferHandler


class OffloadingSpec(ABC):
    name: ClassVar[str]
    _registry: ClassVar[Dict[str, Type["OffloadingSpec"]]] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        OffloadingSpec._registry[cls.name] = cls

    def __init__(self, extra_config: dict):
        self.extra_config = extra_config

    @classmethod
    def create(cls, extra_config: dict) -> "OffloadingSpec":
        return cls._registry[extra_config.get("spec_name", "CPUOffloadingSpec")](extra_config)

    @abstractmethod
    def get_handlers(
            self, kv_caches: Dict[str, torch.Tensor]) -> Iterator[Tuple[str, str, TransferHandler]]:
        ...


class CPUOffloadingSpec(OffloadingSpec):
    name = "CPUOffloadingSpec"

    def get_handlers(self, kv_caches):
        num_cpu_blocks = int(self.extra_config["num_cpu_blocks"])
        gpu_caches, cpu_caches = [], []
        for gpu_cache in kv_caches.values():
            assert gpu_cache.is_cuda
            gpu_caches.append(gpu_cache)
            cpu_caches.append(torch.zeros((num_cpu_blocks, ) + tuple(gpu_cache.shape[1:]),
                                          dtype=gpu_cache.dtype, pin_memory=True))
        yield "GPU", "CPU", GpuToCpuHandler(gpu_caches, cpu_caches)
        yield "CPU", "GPU", CpuToGpuHandler(cpu_caches, gpu_caches)
