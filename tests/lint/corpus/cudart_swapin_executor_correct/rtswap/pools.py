"""The two block pools, as torch tensors addressed by raw pointer."""
import torch


class BlockPool:
    def __init__(self, num_blocks: int, block_bytes: int, device: str):
        self.block_bytes = block_bytes
        self.storage = torch.empty((num_blocks, block_bytes), dtype=torch.uint8,
                                   device=device, pin_memory=(device == "cpu"))
        self.base = self.storage.data_ptr()
        self.free = list(range(num_blocks))

    def addr(self, block: int) -> int:
        return self.base + block * self.block_bytes

    def take(self, n: int):
        out, self.free = self.free[:n], self.free[n:]
        return out

    def give_back(self, blocks) -> None:
        self.free.extend(blocks)
