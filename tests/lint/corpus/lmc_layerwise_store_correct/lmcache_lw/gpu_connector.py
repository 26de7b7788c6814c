import logging
from typing import Generator, List

import torch

from lmcache_lw.memory_management import MemoryObj

logger = logging.getLogger(__name__)


class VLLMPagedMemLayerwiseGPUConnector:
    """Moves KV between vLLM paged memory and per-layer CPU memory objects.

    vLLM layer layout: [2, num_blocks, block_size, num_kv_heads, head_size].
    Memory object layout: [2, num_tokens, hidden_dim].
    """

    def __init__(self, hidden_dim: int, num_layers: int, block_size: int, device: torch.device):
        self.hidden_dim = hidden_dim
        self.num_layers = num_layers
        self.block_size = block_size
        self.device = device
        self.store_stream = torch.cuda.Stream(device=device)

    def get_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([2, num_tokens, self.hidden_dim])

    def batched_from_gpu(
        self,
        memory_objs: List[List[MemoryObj]],
        starts: List[int],
        ends: List[int],
        **kwargs,
    ) -> Generator[None, None, None]:
        """Generator: one step per layer, resumed after that layer's KV is written."""
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        block_ids: List[int] = kwargs["block_ids"]
        sync: bool = kwargs["sync"]
        bs = self.block_size

        current_stream = torch.cuda.current_stream()
        for layer_id in range(self.num_layers):
            self.store_stream.wait_stream(current_stream)
            kv_layer = kvcaches[layer_id]
            with torch.cuda.stream(self.store_stream):
                for mem_obj, start, end in zip(memory_objs[layer_id], starts, ends):
                    for tok in range(start, end, bs):
                        n = min(bs, end - tok)
                        blk = block_ids[tok // bs]
                        mem_obj.tensor[:, tok - start : tok - start + n].copy_(kv_layer[:, blk, :n].flatten(-2), non_blocking=True)
            if sync:
                self.store_stream.synchronize()
            else:
                layer_done = torch.cuda.Event()
                layer_done.record(self.store_stream)
                for mem_obj in memory_objs[layer_id]:
                    mem_obj.metadata.ready_event = layer_done
            yield
