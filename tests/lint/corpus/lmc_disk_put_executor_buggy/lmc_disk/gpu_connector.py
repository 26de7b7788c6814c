"""GPU connector in the shape of LMCache's VLLMPagedMemGPUConnectorV2 (no staging buffer): a
chunk of KV blocks of every layer is gathered block by block into a pinned memory object on the
store stream, after the store stream waited on the compute stream. With sync=False the call
returns as soon as the copies are queued."""

from typing import List

import torch

from lmc_disk.memory_obj import TensorMemoryObj


class VLLMPagedMemGPUConnectorV2:
    def __init__(self, kvcaches: List[torch.Tensor], block_size: int):
        # per layer: [2, num_blocks, block_size, num_heads, head_size] on the GPU
        self.kvcaches = kvcaches
        self.block_size = block_size
        self.store_stream = torch.cuda.Stream()

    def from_gpu(self, memory_obj: TensorMemoryObj, block_ids: List[int], sync: bool = True) -> None:
        bs = self.block_size
        self.store_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.store_stream):
            for layer_id, kv_layer in enumerate(self.kvcaches):
                for i, block_id in enumerate(block_ids):
                    memory_obj.tensor[:, layer_id, i * bs : (i + 1) * bs].copy_(
                        kv_layer[:, block_id], non_blocking=True
                    )
        if sync:
            self.store_stream.synchronize()
