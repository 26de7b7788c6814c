"""Copies one chunk of KV between SGLang's KV pool and an LMCache memory object."""

import torch

from lmc_sgl.memory import MemoryObj


class SGLangGPUConnector:
    def __init__(self, layer_num: int, device: torch.device):
        self.layer_num = layer_num
        self.device = device
        self._store_stream = None

    @property
    def store_stream(self) -> torch.cuda.Stream:
        if self._store_stream is None:
            self._store_stream = torch.cuda.Stream(device=self.device)
        return self._store_stream

    def from_gpu(
        self, memory_obj: MemoryObj, k_buffer, v_buffer, kv_indices: torch.Tensor, kv_ready: torch.cuda.Event
    ) -> None:
        """Gather the chunk's tokens out of every layer into the pinned object, then wait for
        the copies (the object goes to the storage backend right after). ``kv_ready`` was
        recorded by the requesting thread after the forward that wrote the tokens."""
        n = memory_obj.num_tokens
        stream = self.store_stream
        stream.wait_event(kv_ready)
        with torch.cuda.stream(stream):
            for layer_id in range(self.layer_num):
                memory_obj.tensor[0, layer_id, :n].copy_(k_buffer[layer_id][kv_indices], non_blocking=True)
                memory_obj.tensor[1, layer_id, :n].copy_(v_buffer[layer_id][kv_indices], non_blocking=True)
        stream.synchronize()
