# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Generator, List, Optional
import logging

# Third Party
import torch

# First Party
from lmc_layerwise.config import LayerwiseConfig
from lmc_layerwise.ops import copy_chunks_to_buffer, scatter_to_paged
from lmc_layerwise.storage import MemoryObj

logger = logging.getLogger(__name__)


class VLLMPagedMemLayerwiseGPUConnector:
    def __init__(self, config: LayerwiseConfig):
        self.num_layers = config.num_layers
        self.hidden_dim_size = config.hidden_dim_size
        self.load_stream = torch.cuda.Stream()
        # ping-pong staging buffers, reused across layers and requests
        self.gpu_buffers = [
            torch.empty(config.buffer_shape(), dtype=config.dtype, device=config.device)
            for _ in range(2)
        ]

    def batched_to_gpu(
        self,
        starts: List[int],
        ends: List[int],
        *,
        kvcaches: List[torch.Tensor],
        slot_mapping: torch.Tensor,
    ) -> Generator[None, Optional[List[MemoryObj]], None]:
        slot_mapping_full = torch.cat(
            [slot_mapping[s:e] for s, e in zip(starts, ends, strict=True)]
        )
        num_tokens = len(slot_mapping_full)
        offset = starts[0]
        current_stream = torch.cuda.current_stream()

        for layer_id in range(self.num_layers):
            memory_objs_layer = yield
            assert memory_objs_layer is not None
            load_buffer = self.gpu_buffers[layer_id % 2]

            with torch.cuda.stream(self.load_stream):
                copy_chunks_to_buffer(load_buffer, memory_objs_layer, starts, ends, offset)

            current_stream.wait_stream(self.load_stream)
            scatter_to_paged(
                load_buffer[:, :num_tokens], kvcaches[layer_id], slot_mapping_full
            )
            logger.debug("Finished loading layer %d", layer_id)
        yield
