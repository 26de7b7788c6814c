"""Token-level KV pool on the device plus its free-slot allocator."""

import torch


class TokenToKVPoolAllocator:
    def __init__(self, size: int, device: str = "cuda"):
        self.free_slots = torch.arange(1, size + 1, dtype=torch.int64, device=device)

    def available_size(self) -> int:
        return len(self.free_slots)

    def alloc(self, need: int):
        if need > len(self.free_slots):
            return None
        out, self.free_slots = self.free_slots[:need], self.free_slots[need:]
        return out

    def free(self, indices: torch.Tensor) -> None:
        self.free_slots = torch.cat([self.free_slots, indices])


class MHATokenToKVPool:
    def __init__(self, size: int, layer_num: int, head_num: int, head_dim: int, dtype=torch.bfloat16):
        self.layer_num = layer_num
        self.k_buffer = [torch.zeros((size + 1, head_num, head_dim), dtype=dtype, device="cuda") for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size + 1, head_num, head_dim), dtype=dtype, device="cuda") for _ in range(layer_num)]

    def set_kv_buffer(self, layer_id: int, loc: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
        self.k_buffer[layer_id][loc] = k
        self.v_buffer[layer_id][loc] = v
