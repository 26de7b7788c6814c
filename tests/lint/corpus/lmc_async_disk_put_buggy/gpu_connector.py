"""GPU connector for the nested (k, v) tuple KV layout."""

from typing import List, Tuple

import torch

from .memory import MemoryObj


class VLLMNestedTupleGPUConnector:
    """KV cache is a list of (k, v) tensors of shape [num_tokens, hidden]."""

    def __init__(self, kv_caches: List[Tuple[torch.Tensor, torch.Tensor]]):
        self.kv_caches = kv_caches

    def from_gpu(self, obj: MemoryObj, start: int, end: int) -> None:
        # Same stream as the forward pass that wrote the KV: no extra ordering.
        for layer_id, (k, v) in enumerate(self.kv_caches):
            obj.tensor[layer_id, 0].copy_(k[start:end], non_blocking=True)
            obj.tensor[layer_id, 1].copy_(v[start:end], non_blocking=True)
        obj.copy_done = torch.cuda.Event()
        obj.copy_done.record()

    def batched_from_gpu(self, objs: List[MemoryObj], starts: List[int],
                         ends: List[int]) -> None:
        for obj, start, end in zip(objs, starts, ends):
            self.from_gpu(obj, start, end)
