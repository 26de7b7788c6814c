# SPDX-License-Identifier: Apache-2.0
from cuda.bindings import driver

from .cuda_copy import check
from .envs import NIXL_KV_PLANES


class HostStagingBuffer:
    """Pinned host mirror of the KV cache, registered with the NIXL agent."""

    def __init__(self, num_layers: int, num_blocks: int, block_bytes: int):
        self.num_blocks = num_blocks
        self.block_bytes = block_bytes
        self.layer_bytes = NIXL_KV_PLANES * num_blocks * block_bytes
        self.nbytes = num_layers * self.layer_bytes
        (ptr,) = check(driver.cuMemHostAlloc(self.nbytes, driver.CU_MEMHOSTALLOC_PORTABLE))
        self.base_addr = int(ptr)

    def block_addr(self, layer_idx: int, plane: int, block_id: int) -> int:
        return (
            self.base_addr
            + layer_idx * self.layer_bytes
            + (plane * self.num_blocks + block_id) * self.block_bytes
        )

    def close(self) -> None:
        if self.base_addr:
            check(driver.cuMemFreeHost(self.base_addr))
            self.base_addr = 0
