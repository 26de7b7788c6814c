"""Moves chunks between vLLM's paged KV cache and MemoryObjs. A chunk is gathered into a GPU
staging buffer and copied to the host in one piece, on the connector's store stream; a retrieve
copies a chunk back into the staging buffer and scatters it, on the load stream."""

import torch


class VLLMPagedMemGPUConnector:
    def __init__(self, kv_caches, chunk_size, device="cuda"):
        # kv_caches[layer]: (2, num_blocks * block_size, num_heads, head_size), flattened slots
        self.kv_caches = kv_caches
        num_layers = len(kv_caches)
        _, _, num_heads, head_size = kv_caches[0].shape
        self.gpu_buffer = torch.empty(
            (num_layers, 2, chunk_size, num_heads, head_size), dtype=kv_caches[0].dtype, device=device
        )
        self.store_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()

    def chunk_shape(self, num_tokens):
        num_layers, two, _, num_heads, head_size = self.gpu_buffer.shape
        return (num_layers, two, num_tokens, num_heads, head_size)

    def from_gpu(self, memory_obj, slot_mapping, start, end) -> torch.cuda.Event:
        slots = slot_mapping[start:end]
        staging = self.gpu_buffer[:, :, : end - start]
        stored = torch.cuda.Event()
        self.store_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.store_stream):
            for layer_id, kv in enumerate(self.kv_caches):
                torch.index_select(kv, 1, slots, out=staging[layer_id])
            memory_obj.tensor.copy_(staging, non_blocking=True)
            stored.record()
        return stored

    def to_gpu(self, memory_obj, slot_mapping, start, end):
        slots = slot_mapping[start:end]
        staging = self.gpu_buffer[:, :, : end - start]
        self.load_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.load_stream):
            staging.copy_(memory_obj.tensor, non_blocking=True)
            for layer_id, kv in enumerate(self.kv_caches):
                kv.index_copy_(1, slots, staging[layer_id])
        torch.cuda.current_stream().wait_stream(self.load_stream)
