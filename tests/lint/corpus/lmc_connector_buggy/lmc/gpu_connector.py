import abc
import logging
from typing import List, Optional

import torch

from lmc.memory_management import MemoryObj

logger = logging.getLogger(__name__)


class GPUConnectorInterface(metaclass=abc.ABCMeta):
    @abc.abstractmethod
    def from_gpu(self, memory_obj: MemoryObj, start: int, end: int, **kwargs) -> None:
        """Copy the KV of tokens [start, end) out of the paged GPU cache into memory_obj."""
        raise NotImplementedError


class VLLMPagedMemGPUConnector(GPUConnectorInterface):
    """Reads vLLM paged KV caches: one [2, num_blocks, block_size, num_heads, head_size] tensor per layer."""

    def __init__(self, hidden_dim_size: int, num_layers: int, chunk_size: int, use_gpu_buffer: bool,
                 dtype: torch.dtype, device: torch.device):
        self.hidden_dim_size = hidden_dim_size
        self.num_layers = num_layers
        self.store_stream = torch.cuda.Stream(device=device)
        self.gpu_buffer: Optional[torch.Tensor] = None
        if use_gpu_buffer:
            self.gpu_buffer = torch.empty((num_layers, 2, chunk_size, hidden_dim_size), dtype=dtype, device=device)
        logger.info("VLLMPagedMemGPUConnector: gpu buffer %s", "on" if use_gpu_buffer else "off")

    def _flat(self, kv: torch.Tensor) -> torch.Tensor:
        return kv.view(2, -1, self.hidden_dim_size)

    def from_gpu(self, memory_obj: MemoryObj, start: int, end: int, **kwargs) -> None:
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        slots = kwargs["slot_mapping"][start:end]
        compute_stream = torch.cuda.current_stream()
        with torch.cuda.stream(self.store_stream):
            if self.gpu_buffer is not None:
                self.store_stream.wait_stream(compute_stream)
                staging = self.gpu_buffer[:, :, : end - start]
                for layer_id, kv in enumerate(kvcaches):
                    torch.index_select(self._flat(kv), 1, slots, out=staging[layer_id])
                memory_obj.tensor.copy_(staging, non_blocking=True)
            else:
                for layer_id, kv in enumerate(kvcaches):
                    # expect: KVG001
                    memory_obj.tensor[layer_id].copy_(self._flat(kv)[:, slots], non_blocking=True)
            memory_obj.metadata.ready_event.record(self.store_stream)
