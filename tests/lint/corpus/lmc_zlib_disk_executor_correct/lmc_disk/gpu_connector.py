from typing import List

import torch

from lmc_disk.memory_management import TensorMemoryObj


class VLLMPagedMemGPUConnector:
    """KV_2LTD memory objects from vLLM's paged layers, each layer a
    [2, num_blocks, block_size, num_heads, head_size] tensor."""

    def __init__(self, hidden_dim_size: int, num_layers: int):
        self.hidden_dim_size = hidden_dim_size
        self.num_layers = num_layers
        self.store_stream = torch.cuda.Stream()

    def get_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([2, self.num_layers, num_tokens, self.hidden_dim_size])

    def batched_from_gpu(self, memory_objs: List[TensorMemoryObj], starts: List[int],
                         ends: List[int], kvcaches: List[torch.Tensor],
                         slot_mapping: torch.Tensor) -> None:
        # the forward that wrote these slots was queued on the current stream
        self.store_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.store_stream):
            for memory_obj, start, end in zip(memory_objs, starts, ends):
                slots = slot_mapping[start:end]
                # [2, num_layers, num_tokens, hidden]: gathered on the device, one copy out
                chunk = torch.stack([kv.flatten(1, 2)[:, slots].flatten(2) for kv in kvcaches], dim=1)
                memory_obj.tensor.copy_(chunk, non_blocking=True)
                copied = torch.cuda.Event()
                copied.record()
                memory_obj.mark_pending(copied)

    def to_gpu(self, memory_obj: TensorMemoryObj, start: int, end: int,
               kvcaches: List[torch.Tensor], slot_mapping: torch.Tensor) -> None:
        slots = slot_mapping[start:end]
        for layer_id, kv in enumerate(kvcaches):
            chunk = memory_obj.tensor[:, layer_id].to(kv.device)
            kv.flatten(1, 2)[:, slots] = chunk.view(2, end - start, *kv.shape[3:])
