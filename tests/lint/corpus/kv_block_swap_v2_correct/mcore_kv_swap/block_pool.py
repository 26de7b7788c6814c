from typing import List

import torch
from cuda.bindings import driver


class KVBlockPool:
    """Device KV memory laid out as (2, num_layers, num_blocks, chunk_bytes) plus pinned host slots."""

    def __init__(self, num_layers: int, num_blocks: int, num_host_slots: int, chunk_bytes: int,
                 device: torch.device) -> None:
        self.num_layers = num_layers
        self.num_blocks = num_blocks
        self.chunk_bytes = chunk_bytes
        self.slot_bytes = 2 * num_layers * chunk_bytes
        self.device = device
        self.memory_buffer = torch.empty((2, num_layers, num_blocks, chunk_bytes), dtype=torch.uint8, device=device)
        self.host_buffer = torch.empty((num_host_slots, self.slot_bytes), dtype=torch.uint8, pin_memory=True)
        self._free_slots = list(range(num_host_slots))

    def device_segments(self, block_id: int) -> List[driver.CUdeviceptr]:
        base = self.memory_buffer.data_ptr()
        return [
            driver.CUdeviceptr(base + ((kv * self.num_layers + layer) * self.num_blocks + block_id) * self.chunk_bytes)
            for kv in range(2)
            for layer in range(self.num_layers)
        ]

    def host_segments(self, slot: int) -> List[driver.CUdeviceptr]:
        return self.segments_at(self.host_buffer.data_ptr() + slot * self.slot_bytes)

    def segments_at(self, start: int) -> List[driver.CUdeviceptr]:
        return [driver.CUdeviceptr(start + i * self.chunk_bytes) for i in range(2 * self.num_layers)]

    def allocate_slots(self, count: int) -> List[int]:
        if count > len(self._free_slots):
            raise RuntimeError(f"host swap space exhausted ({count} > {len(self._free_slots)})")
        slots, self._free_slots = self._free_slots[:count], self._free_slots[count:]
        return slots

    def release_slots(self, slots: List[int]) -> None:
        self._free_slots.extend(slots)
