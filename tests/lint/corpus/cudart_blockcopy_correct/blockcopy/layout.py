from __future__ import annotations

from dataclasses import dataclass

from cuda.bindings import runtime as cudart

from ._errors import check


@dataclass
class BlockLayout:
    """Fixed-size blocks in one device pool mirrored by a pinned host pool."""

    block_bytes: int
    num_device_blocks: int
    num_host_blocks: int
    device_base: int = 0
    host_base: int = 0

    def allocate(self) -> "BlockLayout":
        self.device_base = check(
            cudart.cudaMalloc(self.block_bytes * self.num_device_blocks), "cudaMalloc"
        )
        self.host_base = check(
            cudart.cudaHostAlloc(
                self.block_bytes * self.num_host_blocks, cudart.cudaHostAllocPortable
            ),
            "cudaHostAlloc",
        )
        return self

    def free(self) -> None:
        if self.device_base:
            check(cudart.cudaFree(self.device_base), "cudaFree")
        if self.host_base:
            check(cudart.cudaFreeHost(self.host_base), "cudaFreeHost")
        self.device_base = self.host_base = 0

    def device_ptr(self, block: int) -> int:
        if not 0 <= block < self.num_device_blocks:
            raise IndexError(block)
        return self.device_base + block * self.block_bytes

    def host_ptr(self, slot: int) -> int:
        if not 0 <= slot < self.num_host_blocks:
            raise IndexError(slot)
        return self.host_base + slot * self.block_bytes
