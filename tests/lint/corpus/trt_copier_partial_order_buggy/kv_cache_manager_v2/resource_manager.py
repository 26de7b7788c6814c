"""PyExecutor-side resource manager: before each iteration it makes room in the primary
pool by offloading least recently used reusable blocks and onboards the secondary blocks
matched by new requests' prefixes."""

from collections import OrderedDict
from typing import Dict, List

import cuda.bindings.driver as drv
import torch

from ._storage import TieredStorage


class KVCacheResourceManager:
    def __init__(self, num_gpu_blocks: int, num_host_blocks: int, block_bytes: int):
        self.storage = TieredStorage(num_gpu_blocks, num_host_blocks, block_bytes)
        self.reusable: "OrderedDict[int, int]" = OrderedDict()  # gpu block -> hash
        self.offloaded: Dict[int, int] = {}  # hash -> host block

    def release(self, gpu_blocks: List[int], hashes: List[int]) -> None:
        for b, h in zip(gpu_blocks, hashes):
            self.reusable[b] = h

    def prepare_resources(self, needed_blocks: int, matched_hashes: List[int]) -> List[int]:
        compute_stream = drv.CUstream(torch.cuda.current_stream().cuda_stream)
        shortfall = needed_blocks + len(matched_hashes) - len(self.storage.primary.free)
        if shortfall > 0:
            victims = list(self.reusable)[:shortfall]
            hashes = [self.reusable.pop(v) for v in victims]
            host_blocks = self.storage.offload(victims, compute_stream)
            self.offloaded.update(zip(hashes, host_blocks))
        onboard = [self.offloaded.pop(h) for h in matched_hashes if h in self.offloaded]
        return self.storage.onboard(onboard, compute_stream) if onboard else []
