"""GPU connectors between a vLLM paged KV cache and pinned MemoryObjs."""

from dataclasses import dataclass

import torch


@dataclass
class MemoryObj:
    key: int
    tensor: torch.Tensor  # [num_layers, 2, blocks_per_chunk, block_size, heads, dim]

    @property
    def byte_array(self):
        return self.tensor.view(torch.uint8).numpy()


class PinnedAllocator:
    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype

    def allocate(self, key):
        return MemoryObj(key, torch.empty(self.shape, dtype=self.dtype, pin_memory=True))


class PagedGPUConnector:
    def __init__(self, device="cuda"):
        self.store_stream = torch.cuda.Stream(device=device)
        self.load_stream = torch.cuda.Stream(device=device)

    def from_gpu(self, memory_obj, block_ids, *, kvcaches, sync=True):
        self.store_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.store_stream):
            for layer_id, kv in enumerate(kvcaches):
                for i, block_id in enumerate(block_ids):
                    memory_obj.tensor[layer_id, :, i].copy_(kv[:, block_id], non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        if sync:
            self.store_stream.synchronize()
            return None
        return done

    def to_gpu(self, memory_obj, block_ids, *, kvcaches):
        with torch.cuda.stream(self.load_stream):
            for layer_id, kv in enumerate(kvcaches):
                for i, block_id in enumerate(block_ids):
                    # expect: KVG004
                    kv[:, block_id].copy_(memory_obj.tensor[layer_id, :, i], non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.load_stream)


CONNECTORS = {"vllm_paged": PagedGPUConnector}
