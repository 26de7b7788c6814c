import torch


class MHATokenToKVPoolHost:
    def __init__(self, layer_num: int, size: int, head_num: int, head_dim: int, dtype: torch.dtype):
        self.layer_num = layer_num
        self.size = size
        self.k_buffer = torch.empty((layer_num, size, head_num, head_dim), dtype=dtype, pin_memory=True)
        self.v_buffer = torch.empty_like(self.k_buffer, pin_memory=True)

    def load_to_device_per_layer(self, device_pool, spans, layer_id: int):
        k_dev = device_pool.k_buffer[layer_id]
        v_dev = device_pool.v_buffer[layer_id]
        for host_start, device_start, n in spans:
            # expect: KVG004
            k_dev.narrow(0, device_start, n).copy_(self.k_buffer[layer_id, host_start:host_start + n], non_blocking=True)
            # expect: KVG004
            v_dev.narrow(0, device_start, n).copy_(self.v_buffer[layer_id, host_start:host_start + n], non_blocking=True)
