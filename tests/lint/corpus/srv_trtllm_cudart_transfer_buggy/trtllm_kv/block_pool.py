"""Fixed-size block pools over one raw allocation each."""

from collections import OrderedDict, deque

from cuda.bindings import runtime as cudart

from trtllm_kv.cuda_utils import check


class BlockPool:
    def __init__(self, num_blocks, block_bytes):
        self.num_blocks = num_blocks
        self.block_bytes = block_bytes
        self.base = self._allocate(num_blocks * block_bytes)
        self.free_blocks = deque(range(num_blocks))
        # block id -> owning request, least recently used first
        self.lru = OrderedDict()

    def _allocate(self, nbytes):
        raise NotImplementedError

    def address(self, block_id):
        return self.base + block_id * self.block_bytes

    def acquire(self, owner):
        block_id = self.free_blocks.popleft()
        self.lru[block_id] = owner
        return block_id

    def release(self, block_id):
        self.lru.pop(block_id, None)
        self.free_blocks.append(block_id)

    def touch(self, block_id):
        self.lru.move_to_end(block_id)

    def victim(self):
        return next(iter(self.lru))


class PrimaryPool(BlockPool):
    def _allocate(self, nbytes):
        return int(check(cudart.cudaMalloc(nbytes)))


class SecondaryPool(BlockPool):
    def _allocate(self, nbytes):
        return int(check(cudart.cudaMallocHost(nbytes)))
