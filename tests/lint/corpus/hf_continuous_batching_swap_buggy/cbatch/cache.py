"""Paged KV cache: per-layer device block pools and pinned host block pools."""

import torch


class PagedKVCache:
    def __init__(self, num_layers, num_blocks, num_host_blocks, block_size, num_heads, head_dim, dtype, device):
        self.num_layers = num_layers
        self.block_size = block_size
        shape = (num_blocks, block_size, num_heads, head_dim)
        host_shape = (num_host_blocks, block_size, num_heads, head_dim)
        self.key_blocks = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(num_layers)]
        self.value_blocks = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(num_layers)]
        self.host_keys = [torch.empty(host_shape, dtype=dtype, pin_memory=True) for _ in range(num_layers)]
        self.host_values = [torch.empty(host_shape, dtype=dtype, pin_memory=True) for _ in range(num_layers)]
        self.swap_stream = torch.cuda.Stream(device=device)
        self.free_blocks = list(range(num_blocks))
        self.free_host_blocks = list(range(num_host_blocks))

    def swap_out(self, mapping):
        """Copy device blocks to host blocks; ``mapping`` is a list of (device, host) ids."""
        with torch.cuda.stream(self.swap_stream):
            for layer in range(self.num_layers):
                for dev, host in mapping:
                    # expect: KVG001
                    self.host_keys[layer][host].copy_(self.key_blocks[layer][dev], non_blocking=True)
                    # expect: KVG001
                    self.host_values[layer][host].copy_(self.value_blocks[layer][dev], non_blocking=True)

    def swap_in(self, mapping):
        """Copy host blocks back into (just reallocated) device blocks; (host, device) ids."""
        with torch.cuda.stream(self.swap_stream):
            for layer in range(self.num_layers):
                for host, dev in mapping:
                    # expect: KVG004
                    self.key_blocks[layer][dev].copy_(self.host_keys[layer][host], non_blocking=True)
                    # expect: KVG004
                    self.value_blocks[layer][dev].copy_(self.host_values[layer][host], non_blocking=True)
