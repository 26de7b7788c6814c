"""Layer-wise retrieval through two GPU buffers, in the shape of LMCache's
VLLMBufferLayerwiseGPUConnector.batched_to_gpu: a generator the engine advances once per layer,
sending it the layer's pinned memory objects. In step i it (1) loads layer i from the memory
objects into the load buffer on the load stream, (2) re-applies the rotary embedding of layer
i-1 in the other buffer for the new positions, and (3) scatters layer i-2 from its buffer into
the paged KV cache. The buffers swap roles every layer.

Upstream waits with torch.cuda.synchronize() before each swap; here the two streams wait on
each other instead, so that the host does not block on every layer."""

from typing import Dict, List

import torch

from lmc_lw.memory_management import GPUMemoryAllocator, MemoryObj

if torch.cuda.is_available():
    import lmcache.c_ops as lmc_ops


class VLLMBufferLayerwiseGPUConnector:
    def __init__(self, hidden_dim_size: int, num_layers: int, max_tokens: int, dtype: torch.dtype, device: str,
                 fused_rotary_emb=None):
        self.hidden_dim_size = hidden_dim_size
        self.num_layers = num_layers
        self.dtype = dtype
        self.fused_rotary_emb = fused_rotary_emb
        element_size = torch.tensor([], dtype=dtype).element_size()
        # two buffers: one being loaded, one being fixed up and scattered
        self.gpu_buffer_allocator = GPUMemoryAllocator(2 * self.get_shape(max_tokens).numel() * element_size, device)
        self.load_stream = torch.cuda.Stream(device=device)

    def get_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([2, num_tokens, self.hidden_dim_size])

    def batched_to_gpu(self, starts: List[int], ends: List[int], **kwargs):
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        slot_mapping: torch.Tensor = kwargs["slot_mapping"]
        slot_mapping_full = slot_mapping[starts[0] : ends[-1]]
        num_tokens = ends[-1] - starts[0]
        buf_offset = starts[0]
        new_positions = torch.arange(starts[0], ends[-1], dtype=torch.int64, device=kvcaches[0].device)
        old_positions = None

        compute_buf = self.gpu_buffer_allocator.allocate(self.get_shape(num_tokens), self.dtype)
        load_buf = self.gpu_buffer_allocator.allocate(self.get_shape(num_tokens), self.dtype)
        assert compute_buf is not None and load_buf is not None, "Failed to allocate GPU buffer in GPUConnector"
        buffer_mapping: Dict[int, MemoryObj] = {}
        current_stream = torch.cuda.current_stream()

        for layer_id in range(self.num_layers + 2):
            if layer_id > 1:
                lmc_ops.single_layer_kv_transfer(
                    buffer_mapping[layer_id - 2].tensor,
                    kvcaches[layer_id - 2][0],
                    kvcaches[layer_id - 2][1],
                    slot_mapping_full,
                    False,
                    False,
                )
                del buffer_mapping[layer_id - 2]

            if 0 < layer_id <= self.num_layers:
                current_stream.wait_stream(self.load_stream)
                compute_buf, load_buf = load_buf, compute_buf
                if self.fused_rotary_emb is not None and old_positions is not None:
                    compute_buf.tensor[0] = self.fused_rotary_emb(old_positions, new_positions, compute_buf.tensor[0])
                buffer_mapping[layer_id - 1] = compute_buf

            if layer_id < self.num_layers:
                memory_objs_layer: List[MemoryObj] = yield
                if layer_id == 0:
                    old_positions = torch.cat([m.metadata.old_positions for m in memory_objs_layer]).to(
                        new_positions.device, non_blocking=True
                    )
                # the load buffer last held layer i-2, whose scatter into the paged cache was
                # queued on the compute stream just above
                self.load_stream.wait_stream(current_stream)
                with torch.cuda.stream(self.load_stream):
                    for start, end, memory_obj in zip(starts, ends, memory_objs_layer):
                        load_buf.tensor[:, start - buf_offset : end - buf_offset].copy_(
                            memory_obj.tensor, non_blocking=True
                        )
            elif layer_id == self.num_layers:
                yield

        load_buf.ref_count_down()
        compute_buf.ref_count_down()
        yield
