import logging
from typing import List

import torch

from lmc_disk.memory_obj import MemoryObjMetadata, TensorMemoryObj

logger = logging.getLogger(__name__)


class VLLMPagedMemGPUConnectorV2:
    def __init__(self, kvcaches: List[torch.Tensor], device: torch.device):
        self.kvcaches = kvcaches
        self.device = device
        self.store_stream = torch.Stream(device=device)

    def allocate(self, num_tokens: int) -> TensorMemoryObj:
        layer = self.kvcaches[0]
        shape = (2, len(self.kvcaches), num_tokens, layer.shape[-1])
        buf = torch.empty(shape, dtype=layer.dtype, pin_memory=True)
        return TensorMemoryObj(buf, MemoryObjMetadata(shape, layer.dtype))

    def from_gpu(self, memory_obj: TensorMemoryObj, slots: torch.Tensor):
        self.store_stream.wait_stream(torch.accelerator.current_stream(self.device))
        with self.store_stream:
            gathered = torch.stack([kv.index_select(1, slots) for kv in self.kvcaches], dim=1)
            memory_obj.tensor.copy_(gathered, non_blocking=True)
            event = torch.Event(device=self.device)
            event.record(self.store_stream)
        memory_obj.copy_event = event
