"""Chunk-sized CUDA blocks for chunks that come back from the host."""
import torch


class ChunkBlockAllocator:
    def __init__(self, chunk_numel: int, dtype: torch.dtype, device):
        self.chunk_numel = chunk_numel
        self.dtype = dtype
        self.device = torch.device(device)
        self._free: list[torch.Tensor] = []

    def take(self) -> torch.Tensor:
        """Called on the stream that fills the block."""
        if self._free:
            return self._free.pop()
        return torch.empty(self.chunk_numel, dtype=self.dtype, device=self.device)

    def give_back(self, block: torch.Tensor) -> None:
        """Called on the compute stream once the last op using the block was queued."""
        self._free.append(block)

    def __len__(self) -> int:
        return len(self._free)
