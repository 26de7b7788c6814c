"""vLLM paged-memory connector that moves chunks through one persistent GPU staging buffer:
stores gather the chunk's slots into the buffer on the caller's stream and copy it out on the
store stream; retrieves copy a chunk into the buffer on the load stream and scatter it into the
paged cache on the caller's stream. Both scopes order their side stream behind the caller's:
the buffer a copy overwrites may still be read by the caller's scatter of the previous chunk."""

from typing import List, Sequence

import torch

from lmc_buf.stream_utils import SideStreamScope


class VLLMBufferedGPUConnector:
    def __init__(self, num_layers: int, chunk_size: int, num_heads: int, head_size: int, dtype, device: str):
        self.num_layers = num_layers
        self.hidden = num_heads * head_size
        self.gpu_buffer = torch.empty((2, num_layers, chunk_size, self.hidden), dtype=dtype, device=device)
        self.load_stream = torch.cuda.Stream()
        self.store_stream = torch.cuda.Stream()

    def batched_from_gpu(self, memory_objs, starts: Sequence[int], ends: Sequence[int],
                         kvcaches: List[torch.Tensor], slot_mapping: torch.Tensor) -> None:
        for memory_obj, start, end in zip(memory_objs, starts, ends):
            n = end - start
            slots = slot_mapping[start:end]
            for layer_id, kv_layer in enumerate(kvcaches):
                self.gpu_buffer[0, layer_id, :n] = kv_layer[0].view(-1, self.hidden)[slots]
                self.gpu_buffer[1, layer_id, :n] = kv_layer[1].view(-1, self.hidden)[slots]
            with SideStreamScope(self.store_stream, order_after_caller=True):
                memory_obj.tensor[:, :, :n].copy_(self.gpu_buffer[:, :, :n], non_blocking=True)
        self.store_stream.synchronize()

    def batched_to_gpu(self, memory_objs, starts: Sequence[int], ends: Sequence[int],
                       kvcaches: List[torch.Tensor], slot_mapping: torch.Tensor) -> None:
        for memory_obj, start, end in zip(memory_objs, starts, ends):
            n = end - start
            slots = slot_mapping[start:end]
            with SideStreamScope(self.load_stream, order_after_caller=True):
                self.gpu_buffer[:, :, :n].copy_(memory_obj.tensor[:, :, :n], non_blocking=True)
            for layer_id, kv_layer in enumerate(kvcaches):
                kv_layer[0].view(-1, self.hidden)[slots] = self.gpu_buffer[0, layer_id, :n]
                kv_layer[1].view(-1, self.hidden)[slots] = self.gpu_buffer[1, layer_id, :n]
