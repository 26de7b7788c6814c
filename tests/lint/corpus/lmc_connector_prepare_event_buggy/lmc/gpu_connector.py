import logging
from typing import List, Optional

import torch

from lmc.memory_management import MemoryObj

logger = logging.getLogger(__name__)


class VLLMPagedMemGPUConnector:
    def __init__(self, hidden_dim_size: int, num_layers: int, device: torch.device):
        self.hidden_dim_size = hidden_dim_size
        self.num_layers = num_layers
        self.device = device
        self.kvcaches: Optional[List[torch.Tensor]] = None
        self.store_stream = torch.cuda.Stream(device=device)
        self._store_ready: Optional[torch.cuda.Event] = None

    def initialize_kvcaches(self, kvcaches: List[torch.Tensor]):
        self.kvcaches = kvcaches

    def get_shape(self, num_tokens: int):
        return torch.Size([2, self.num_layers, num_tokens, self.hidden_dim_size])

    def prepare_store(self):
        if self._store_ready is None:
            self._store_ready = torch.cuda.Event()
            self._store_ready.record(torch.cuda.current_stream(self.device))

    def from_gpu(self, memory_obj: MemoryObj, start: int, end: int, slot_mapping: torch.Tensor):
        assert self.kvcaches is not None, "kvcaches not registered"
        slots = slot_mapping[start:end]
        with torch.cuda.stream(self.store_stream):
            if self._store_ready is not None:
                self.store_stream.wait_event(self._store_ready)
            else:
                self.store_stream.wait_stream(torch.cuda.current_stream(self.device))
            staged = torch.stack(
                [layer.flatten(1, 2).index_select(1, slots).flatten(2) for layer in self.kvcaches],
                dim=1,
            )
            # expect: KVG001
            memory_obj.tensor.copy_(staged, non_blocking=True)
        self.store_stream.synchronize()
