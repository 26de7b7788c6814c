# Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
"""Block-based KV memory of the in-flight requests."""

import torch

from .config import InferenceConfig


class DynamicInferenceContext:

    def __init__(self, config: InferenceConfig):
        self.config = config
        self.kv_shape = (2, config.num_layers, config.num_blocks, config.block_size_tokens,
                         config.num_attention_heads_per_partition, config.head_dim)
        self.memory_buffer = None
        self.host_memory_buffer = None
        self.request_to_blocks = {}
        self.is_tensor_state_allocated = False
        self.allocate_all_tensors()

    def allocate_all_tensors(self):
        if self.is_tensor_state_allocated:
            return
        self.memory_buffer = torch.empty(self.kv_shape, dtype=self.config.params_dtype,
                                         device=torch.cuda.current_device())
        self.is_tensor_state_allocated = True

    def deallocate_all_tensors(self):
        if not self.is_tensor_state_allocated:
            return
        self.memory_buffer = None
        self.is_tensor_state_allocated = False

    def append_key_value_cache(self, layer_number, key, value, block_ids, offsets):
        self.memory_buffer[0, layer_number - 1, block_ids, offsets] = key
        self.memory_buffer[1, layer_number - 1, block_ids, offsets] = value

    def copy_kv_to_host(self):
        """Queue the copy of the KV memory to host on the current stream."""
        if self.host_memory_buffer is None:
            self.host_memory_buffer = torch.empty(self.kv_shape, dtype=self.config.params_dtype,
                                                  device="cpu", pin_memory=True)
        self.host_memory_buffer.copy_(self.memory_buffer, non_blocking=True)

    def copy_kv_from_host(self):
        self.memory_buffer.copy_(self.host_memory_buffer, non_blocking=True)
