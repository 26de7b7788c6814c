"""GPU connector for SGLang's per-layer K/V token pools: gathers the slots of a chunk into a
memory object [2, num_layers, num_tokens, hidden] on a per-device store stream."""

from typing import Dict, List

import torch


class SGLangGPUConnector:
    def __init__(self, num_layers, hidden_dim, device):
        self.num_layers = num_layers
        self.hidden_dim = hidden_dim
        self.device = torch.device(device)
        self._store_streams: Dict[int, torch.cuda.Stream] = {}

    @property
    def store_stream(self) -> torch.cuda.Stream:
        index = self.device.index or 0
        if index not in self._store_streams:
            self._store_streams[index] = torch.cuda.Stream(device=self.device)
        return self._store_streams[index]

    def get_shape(self, num_tokens):
        return (2, self.num_layers, num_tokens, self.hidden_dim)

    def batched_from_gpu(self, memory_objs: List, starts: List[int], ends: List[int], *,
                         k_buffers, v_buffers, slot_mapping, sync=True):
        stream = self.store_stream
        # the forward that produced the KV was launched on the caller's current stream (the
        # overlap worker's forward stream, not the default stream)
        stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(stream):
            for memory_obj, start, end in zip(memory_objs, starts, ends):
                slots = slot_mapping[start:end]
                for layer in range(self.num_layers):
                    k = k_buffers[layer][slots].flatten(1)
                    v = v_buffers[layer][slots].flatten(1)
                    memory_obj.tensor[0, layer].copy_(k, non_blocking=True)
                    memory_obj.tensor[1, layer].copy_(v, non_blocking=True)
        if sync:
            stream.synchronize()
