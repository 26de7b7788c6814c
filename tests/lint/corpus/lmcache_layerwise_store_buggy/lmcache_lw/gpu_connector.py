from collections.abc import Generator

import torch

from .memory_management import MemoryObj


class VLLMPagedMemLayerwiseGPUConnector:
    """Moves KV between vLLM's paged GPU cache and LMCache memory objects one
    layer at a time, so offloading layer i overlaps with computing layer i+1.

    Per-layer paged cache shape: [2, num_blocks, block_size, num_heads, head_size].
    """

    def __init__(self, num_layers: int, block_size: int):
        self.num_layers = num_layers
        self.block_size = block_size
        self.store_stream = torch.cuda.Stream()

    def batched_from_gpu(
        self,
        memory_objs: list[MemoryObj],
        block_ids: list[int],
        num_tokens: int,
        kvcaches: list[torch.Tensor],
    ) -> Generator[None, None, None]:
        """Yields once before the first layer and once after every layer.
        The caller resumes us right after the model wrote layer `layer_id`."""
        assert len(memory_objs) == self.num_layers
        self.store_stream.wait_stream(torch.cuda.current_stream())
        yield

        for layer_id in range(self.num_layers):
            kv_layer = kvcaches[layer_id]
            dst = memory_objs[layer_id].tensor
            with torch.cuda.stream(self.store_stream):
                for i, block_id in enumerate(block_ids):
                    start = i * self.block_size
                    n = min(self.block_size, num_tokens - start)
                    # expect: KVG001
                    dst[:, start : start + n].copy_(
                        kv_layer[:, block_id, :n].flatten(-2), non_blocking=True
                    )
            yield
