# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Generator, List, Optional
import logging

# Third Party
import torch

# First Party
from layerkv.config import LayerwiseConfig
from layerkv.memory import MemoryObj
from layerkv.transfer import offload_layer_chunk

logger = logging.getLogger(__name__)


class LayerwiseGPUConnector:
    """Moves the KV cache of one layer per step from GPU to memory objects.

    The KV cache of each layer is laid out as ``[2, num_slots, hidden_dim]``.
    """

    def __init__(self, config: LayerwiseConfig):
        self.config = config
        self.num_layers = config.num_layers
        self.hidden_dim = config.hidden_dim
        self.device = torch.device(config.device)
        self.kvcaches: Optional[List[torch.Tensor]] = None
        self.store_stream = torch.cuda.Stream(device=self.device)

    def get_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([2, num_tokens, self.hidden_dim])

    def batched_from_gpu(
        self,
        memory_objs: List[List[MemoryObj]],
        starts: List[int],
        ends: List[int],
        kvcaches: List[torch.Tensor],
        slot_offset: int = 0,
    ) -> Generator[None, None, None]:
        """Generator: yields ``num_layers + 1`` times. Each resume issues the
        offload of the next layer and waits for the previous one."""
        self.kvcaches = kvcaches
        current_stream = torch.cuda.current_stream(self.device)

        for layer_id in range(self.num_layers):
            layer_ready = torch.cuda.Event()
            layer_ready.record(current_stream)
            with torch.cuda.stream(self.store_stream):
                self.store_stream.wait_event(layer_ready)
                for start, end, memory_obj in zip(
                    starts, ends, memory_objs[layer_id], strict=False
                ):
                    offload_layer_chunk(
                        memory_obj,
                        kvcaches[layer_id],
                        slot_offset + start,
                        slot_offset + end,
                    )
            yield
            self.store_stream.synchronize()
            logger.debug("Finished offloading layer %d", layer_id)

        yield
