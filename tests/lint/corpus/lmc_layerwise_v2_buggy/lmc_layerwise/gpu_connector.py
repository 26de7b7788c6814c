import logging
from typing import Generator, List

import torch

from lmc_layerwise.memory_management import MemoryObj
from lmc_layerwise.utils import copy_chunk_to_paged, copy_paged_to_chunk

logger = logging.getLogger(__name__)


class VLLMPagedMemLayerwiseGPUConnector:
    def __init__(self, num_layers: int, block_size: int):
        self.num_layers = num_layers
        self.block_size = block_size
        self.store_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()
        self.layer_load_events: List[torch.cuda.Event] = []

    def _blocks_for(self, block_ids: List[int], start: int, end: int) -> List[int]:
        return block_ids[start // self.block_size : end // self.block_size]

    def batched_from_gpu(
        self, memory_objs: List[List[MemoryObj]], starts: List[int], ends: List[int], **kwargs
    ) -> Generator[None, None, None]:
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        block_ids: List[int] = kwargs["block_ids"]
        sync: bool = kwargs.get("sync", True)
        current_stream = torch.cuda.current_stream()
        self.store_stream.wait_stream(current_stream)

        for layer_id in range(self.num_layers):
            with torch.cuda.stream(self.store_stream):
                for memory_obj, start, end in zip(memory_objs[layer_id], starts, ends):
                    copy_paged_to_chunk(
                        memory_obj.tensor,
                        kvcaches[layer_id],
                        self._blocks_for(block_ids, start, end),
                        self.block_size,
                    )
            yield

        if sync:
            self.store_stream.synchronize()
        logger.debug("Stored %d layers for %d chunks", self.num_layers, len(starts))
        yield

    def batched_to_gpu(
        self, memory_objs: List[List[MemoryObj]], starts: List[int], ends: List[int], **kwargs
    ) -> Generator[None, None, None]:
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        block_ids: List[int] = kwargs["block_ids"]
        self.layer_load_events = [torch.cuda.Event() for _ in range(self.num_layers)]
        self.load_stream.wait_stream(torch.cuda.current_stream())

        for layer_id in range(self.num_layers):
            with torch.cuda.stream(self.load_stream):
                for memory_obj, start, end in zip(memory_objs[layer_id], starts, ends):
                    copy_chunk_to_paged(
                        kvcaches[layer_id],
                        memory_obj.tensor,
                        self._blocks_for(block_ids, start, end),
                        self.block_size,
                    )
                self.layer_load_events[layer_id].record(self.load_stream)
            yield
        yield

    def wait_for_layer_load(self, layer_id: int) -> None:
        torch.cuda.current_stream().wait_event(self.layer_load_events[layer_id])
