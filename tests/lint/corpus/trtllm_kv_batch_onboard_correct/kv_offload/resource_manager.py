import logging

import torch

from .constants import HOST_CACHE_FRACTION
from .kv_cache_transfer_manager import KVCacheTransferManager

logger = logging.getLogger(__name__)


class KVCacheManager:
    def __init__(self, num_blocks: int, block_shape: tuple[int, ...], dtype=torch.float16) -> None:
        self.primary = torch.zeros((num_blocks, *block_shape), dtype=dtype, device="cuda")
        num_host = max(1, int(num_blocks * HOST_CACHE_FRACTION))
        self.secondary = torch.empty((num_host, *block_shape), dtype=dtype, pin_memory=True)
        self.transfer = KVCacheTransferManager(self.primary, self.secondary)
        self.free_gpu = list(range(num_blocks))
        self.free_host = list(range(num_host))
        self.offloaded: dict[int, list[int]] = {}
        self.resident: dict[int, list[int]] = {}

    def allocate(self, request_id: int, n: int) -> list[int]:
        blocks = [self.free_gpu.pop() for _ in range(n)]
        self.resident[request_id] = blocks
        return blocks

    def suspend(self, request_id: int) -> None:
        gpu = self.resident.pop(request_id)
        host = [self.free_host.pop() for _ in gpu]
        self.transfer.offload(gpu, host)
        self.free_gpu.extend(gpu)
        self.offloaded[request_id] = host

    def resume(self, request_id: int) -> list[int]:
        host = self.offloaded.pop(request_id)
        gpu = [self.free_gpu.pop() for _ in host]
        self.transfer.onboard(host, gpu)
        self.free_host.extend(host)
        self.resident[request_id] = gpu
        return gpu

    def free(self, request_id: int) -> None:
        self.free_gpu.extend(self.resident.pop(request_id))
