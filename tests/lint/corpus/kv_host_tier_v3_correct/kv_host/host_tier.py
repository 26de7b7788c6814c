import ctypes
import logging
import os
from typing import List

from .offload_manager import KVCacheHostOffloader

logger = logging.getLogger(__name__)


class HostTierSpiller:
    """Writes host-resident blocks to local disk when the host pool runs low."""

    def __init__(self, offloader: KVCacheHostOffloader, spill_dir: str):
        self._offloader = offloader
        self._spill_dir = spill_dir
        os.makedirs(spill_dir, exist_ok=True)

    def _path(self, host_block: int) -> str:
        return os.path.join(self._spill_dir, f"block_{host_block:08d}.bin")

    def spill(self, job_id: int, host_blocks: List[int]) -> int:
        self._offloader.wait(job_id)
        written = 0
        for host_block in host_blocks:
            data = ctypes.string_at(
                self._offloader.host_block_ptr(host_block), self._offloader.block_bytes
            )
            with open(self._path(host_block), "wb") as f:
                written += f.write(data)
        logger.debug("Spilled %d blocks (%d bytes)", len(host_blocks), written)
        return written
