"""Two-level KV cache: a primary pool in device memory and a secondary pool in
pinned host memory, with onboard/offload between them."""
import logging
import os
from dataclasses import dataclass
from typing import Dict, List, Optional

import torch

from .cuda_stream import CudaStream

logger = logging.getLogger(__name__)


@dataclass
class KvCacheConfig:
    num_layers: int
    num_kv_heads: int
    head_dim: int
    tokens_per_block: int = 64
    max_primary_blocks: int = 1024
    max_secondary_blocks: int = 8192
    dtype: torch.dtype = torch.float16
    spill_dir: Optional[str] = None


class OutOfBlocksError(RuntimeError):
    pass


class KVCacheManager:

    def __init__(self, config: KvCacheConfig) -> None:
        self.config = config
        block_shape = (config.num_layers, 2, config.tokens_per_block,
                       config.num_kv_heads, config.head_dim)
        self.primary_pool = torch.empty((config.max_primary_blocks,) + block_shape,
                                        dtype=config.dtype, device="cuda")
        self.secondary_pool = torch.empty((config.max_secondary_blocks,) + block_shape,
                                          dtype=config.dtype, pin_memory=True)
        self._free_primary: List[int] = list(range(config.max_primary_blocks))
        self._free_secondary: List[int] = list(range(config.max_secondary_blocks))
        self._transfer = CudaStream(priority=-1)
        self._last_offload: Optional[torch.cuda.Event] = None
        self._spilled: Dict[int, str] = {}

    # ------------------------------------------------------------ allocation
    def allocate_primary(self, n: int) -> List[int]:
        if n > len(self._free_primary):
            raise OutOfBlocksError(f"need {n} primary blocks, {len(self._free_primary)} free")
        return [self._free_primary.pop() for _ in range(n)]

    def free_primary(self, block_ids: List[int]) -> None:
        # Freed blocks go straight back to the pool; kernels already queued on
        # the compute stream may still read them.
        self._free_primary.extend(block_ids)

    def _allocate_secondary(self, n: int) -> List[int]:
        if n > len(self._free_secondary):
            raise OutOfBlocksError(f"need {n} secondary blocks")
        return [self._free_secondary.pop() for _ in range(n)]

    # -------------------------------------------------------------- transfers
    def offload(self, primary_ids: List[int]) -> List[int]:
        """Copy primary blocks to the secondary pool; returns their secondary ids."""
        secondary_ids = self._allocate_secondary(len(primary_ids))
        self._transfer.wait_for(CudaStream.current())
        with torch.cuda.stream(self._transfer.torch_stream):
            for p, s in zip(primary_ids, secondary_ids):
                self.secondary_pool[s].copy_(self.primary_pool[p], non_blocking=True)
        self._last_offload = self._transfer.record()
        logger.debug("offloaded %d blocks", len(primary_ids))
        return secondary_ids

    def onboard(self, secondary_ids: List[int]) -> List[int]:
        """Bring secondary blocks back into freshly assigned primary blocks."""
        primary_ids = self.allocate_primary(len(secondary_ids))
        # Recycled primary blocks may still be read by queued compute kernels.
        self._transfer.wait_for(CudaStream.current())
        with torch.cuda.stream(self._transfer.torch_stream):
            for s, p in zip(secondary_ids, primary_ids):
                self.primary_pool[p].copy_(self.secondary_pool[s], non_blocking=True)
        # The model reads the onboarded blocks on the compute stream.
        CudaStream.current().wait_for(self._transfer)
        self._free_secondary.extend(secondary_ids)
        return primary_ids

    def spill_to_disk(self, primary_ids: List[int], tag: str) -> str:
        """Offload blocks and persist them under spill_dir for a later session."""
        if not self.config.spill_dir:
            raise RuntimeError("spill_dir is not configured")
        os.makedirs(self.config.spill_dir, exist_ok=True)
        path = os.path.join(self.config.spill_dir, f"{tag}.kvblocks")
        secondary_ids = self.offload(primary_ids)
        self._last_offload.synchronize()
        with open(path, "wb") as f:
            for s in secondary_ids:
                f.write(self.secondary_pool[s].numpy().tobytes())
        self._spilled[hash(tag)] = path
        logger.info("spilled %d blocks to %s", len(secondary_ids), path)
        return path

    def stats(self) -> Dict[str, int]:
        return {
            "free_primary": len(self._free_primary),
            "free_secondary": len(self._free_secondary),
            "spilled": len(self._spilled),
        }
