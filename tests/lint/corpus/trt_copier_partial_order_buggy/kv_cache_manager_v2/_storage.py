"""Primary (GPU) and secondary (pinned host) block pools. Offloading moves an evicted
primary block to the secondary pool; onboarding brings a secondary block back."""

from typing import List

import cuda.bindings.driver as drv

from ._copy_engine import CacheTier, CopyTask, batched_copy
from ._utils import CachedCudaEvent, DeviceMem, HostMem, create_stream, stream_wait_events


class BlockPool:
    def __init__(self, mem, num_blocks: int, block_bytes: int):
        self.mem = mem
        self.block_bytes = block_bytes
        self.free: List[int] = list(range(num_blocks))

    def address(self, block: int) -> int:
        return self.mem.address + block * self.block_bytes


class TieredStorage:
    def __init__(self, num_gpu_blocks: int, num_host_blocks: int, block_bytes: int):
        self.block_bytes = block_bytes
        self.primary = BlockPool(DeviceMem(num_gpu_blocks * block_bytes), num_gpu_blocks,
                                 block_bytes)
        self.secondary = BlockPool(HostMem(num_host_blocks * block_bytes), num_host_blocks,
                                   block_bytes)
        # one stream for both directions: an onboard of a host block is ordered after
        # the offload that filled it
        self.copy_stream = create_stream()

    def offload(self, gpu_blocks: List[int], compute_stream: drv.CUstream) -> List[int]:
        """Copy evicted GPU blocks to newly taken host blocks; returns the host blocks."""
        host_blocks = [self.secondary.free.pop() for _ in gpu_blocks]
        # the block may have been written by the iteration still in flight
        stream_wait_events(self.copy_stream, [CachedCudaEvent(compute_stream)])
        tasks = [CopyTask(self.secondary.address(h), self.primary.address(g))
                 for g, h in zip(gpu_blocks, host_blocks)]
        batched_copy(CacheTier.HOST_MEM, CacheTier.GPU_MEM, self.block_bytes, tasks,
                     self.copy_stream)
        # the freed GPU blocks are handed to new sequences: their next writer must wait
        stream_wait_events(compute_stream, [CachedCudaEvent(self.copy_stream)])
        self.primary.free.extend(gpu_blocks)
        return host_blocks

    def onboard(self, host_blocks: List[int], compute_stream: drv.CUstream) -> List[int]:
        gpu_blocks = [self.primary.free.pop() for _ in host_blocks]
        # the freed GPU blocks may still be read by the iteration in flight
        stream_wait_events(self.copy_stream, [CachedCudaEvent(compute_stream)])
        tasks = [CopyTask(self.primary.address(g), self.secondary.address(h))
                 for g, h in zip(gpu_blocks, host_blocks)]
        batched_copy(CacheTier.GPU_MEM, CacheTier.HOST_MEM, self.block_bytes, tasks,
                     self.copy_stream)
        # the next iteration reads the onboarded blocks
        stream_wait_events(compute_stream, [CachedCudaEvent(self.copy_stream)])
        self.secondary.free.extend(host_blocks)
        return gpu_blocks
