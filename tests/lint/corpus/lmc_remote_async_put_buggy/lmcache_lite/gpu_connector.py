"""Copies token ranges of vLLM's flat KV cache ([num_layers, 2, num_slots, hidden]) into memory
objects on a dedicated store stream."""

import torch


class VLLMFlatGPUConnector:
    def __init__(self, num_layers: int, hidden: int):
        self.num_layers = num_layers
        self.hidden = hidden
        self.store_stream = torch.cuda.Stream()

    def from_gpu(self, memory_obj, start: int, end: int, *, kvcache: torch.Tensor,
                 slot_mapping: torch.Tensor, sync: bool = True) -> None:
        self.store_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.store_stream):
            gathered = kvcache[:, :, slot_mapping[start:end]]
            memory_obj.tensor.copy_(gathered, non_blocking=True)
        if sync:
            self.store_stream.synchronize()
