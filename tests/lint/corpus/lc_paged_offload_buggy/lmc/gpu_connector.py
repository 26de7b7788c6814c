"""Copies token ranges out of vLLM's paged KV cache into MemoryObjs.

kvcaches[layer] has shape [2, num_blocks, block_size, num_heads * head_size];
a MemoryObj for one chunk has shape [2, num_layers, num_tokens, hidden].
"""

from typing import List

import torch

from .memory_management import TensorMemoryObj


class VLLMPagedMemGPUConnector:
    def __init__(self, hidden_dim_size: int, num_layers: int, block_size: int):
        self.hidden_dim_size = hidden_dim_size
        self.num_layers = num_layers
        self.block_size = block_size
        self._store_stream = torch.cuda.Stream()

    @property
    def store_stream(self) -> torch.cuda.Stream:
        return self._store_stream

    def get_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([2, self.num_layers, num_tokens, self.hidden_dim_size])

    def from_gpu(self, memory_obj: TensorMemoryObj, start: int, end: int, **kwargs) -> None:
        """Copy tokens [start, end) of the request into ``memory_obj``.

        kwargs: kvcaches (list of per-layer tensors), block_ids (host list of the
        request's block table).
        """
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        block_ids: List[int] = kwargs["block_ids"]
        dst = memory_obj.tensor
        with torch.cuda.stream(self.store_stream):
            for layer_id, kv in enumerate(kvcaches):
                pos = start
                while pos < end:
                    block = block_ids[pos // self.block_size]
                    lo = pos % self.block_size
                    n = min(self.block_size - lo, end - pos)
                    # expect: KVG001
                    dst[:, layer_id, pos - start : pos - start + n].copy_(
                        kv[:, block, lo : lo + n], non_blocking=True
                    )
                    pos += n
        # the MemoryObj leaves this function fully written
        self.store_stream.synchronize()
