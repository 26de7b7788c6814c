"""Primary (device) and secondary (pinned host) block pools, one raw allocation each; a block
holds every layer's K and V for tokens_per_block tokens."""

from typing import List

from cuda.bindings import runtime as cudart

from trt_kv.cuda_utils import CUASSERT


class BlockPool:
    def __init__(self, num_blocks: int, block_bytes: int, on_device: bool):
        self.num_blocks = num_blocks
        self.block_bytes = block_bytes
        nbytes = num_blocks * block_bytes
        if on_device:
            self.base = CUASSERT(cudart.cudaMalloc(nbytes))
        else:
            self.base = CUASSERT(cudart.cudaMallocHost(nbytes))
        self.free_blocks: List[int] = list(range(num_blocks))

    def block_ptr(self, block_id: int) -> int:
        return int(self.base) + block_id * self.block_bytes

    def allocate(self) -> int:
        return self.free_blocks.pop()

    def release(self, block_id: int) -> None:
        self.free_blocks.append(block_id)
