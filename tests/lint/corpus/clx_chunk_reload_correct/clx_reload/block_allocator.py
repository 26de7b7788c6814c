"""Chunk-sized CUDA blocks for chunks that come back from the host."""
import torch


class ChunkBlockAllocator:
    def __init__(self, chunk_numel: int, dtype: torch.dtype, device):
        self.chunk_numel = chunk_numel
        self.dtype = dtype
        self.device = torch.device(device)

    def take(self) -> torch.Tensor:
        """Called on the stream that fills the block.

        Always a fresh block from the caching allocator, owned by the calling stream: a
        block freed by another stream is not handed out until that stream is done with it.
        """
        return torch.empty(self.chunk_numel, dtype=self.dtype, device=self.device)

    def give_back(self, block: torch.Tensor) -> None:
        """Called on the compute stream once the last op using the block was queued."""
        block.record_stream(torch.cuda.current_stream(self.device))
