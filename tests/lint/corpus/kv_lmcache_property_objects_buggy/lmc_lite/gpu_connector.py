"""GPU connector between vLLM's paged KV cache ([num_blocks, 2, block_size, hidden] per layer)
and pinned memory objects ([num_layers, num_blocks, 2, block_size, hidden])."""

import torch


class PagedGPUConnector:
    def __init__(self, num_layers, block_size, device):
        self.num_layers = num_layers
        self.block_size = block_size
        self.store_stream = torch.cuda.Stream(device=device)
        self.load_stream = torch.cuda.Stream(device=device)

    def from_gpu(self, memory_obj, start, end, **kwargs):
        kvcaches = kwargs["kvcaches"]
        block_ids = kwargs["block_ids"][start // self.block_size : end // self.block_size]
        with torch.cuda.stream(self.store_stream):
            for layer, kv in enumerate(kvcaches):
                for j, block in enumerate(block_ids):
                    # expect: KVG001
                    memory_obj.tensor[layer, j].copy_(kv[block], non_blocking=True)

    def to_gpu(self, memory_obj, start, end, **kwargs):
        kvcaches = kwargs["kvcaches"]
        block_ids = kwargs["block_ids"][start // self.block_size : end // self.block_size]
        with torch.cuda.stream(self.load_stream):
            for layer, kv in enumerate(kvcaches):
                for j, block in enumerate(block_ids):
                    # expect: KVG004
                    kv[block].copy_(memory_obj.tensor[layer, j], non_blocking=True)
        self.load_stream.synchronize()

    def batched_from_gpu(self, memory_objs, starts, ends, **kwargs):
        """Layerwise store: resumed by the engine after each layer's attention wrote its KV."""
        kvcaches = kwargs["kvcaches"]
        self.store_stream.wait_stream(torch.cuda.current_stream())
        for layer in range(self.num_layers):
            with torch.cuda.stream(self.store_stream):
                for obj, start, end in zip(memory_objs[layer], starts, ends):
                    blocks = kwargs["block_ids"][start // self.block_size : end // self.block_size]
                    for j, block in enumerate(blocks):
                        # expect: KVG001
                        obj.tensor[j].copy_(kvcaches[layer][block], non_blocking=True)
            yield
        self.store_stream.synchronize()
        yield
