# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Generator, List, Optional
import logging

# Third Party
import torch

# First Party
from lmc_layerwise.config import LayerwiseConnectorConfig
from lmc_layerwise.memory import MemoryObj
from lmc_layerwise.transfer import copy_spans_to_host, stage_layer

logger = logging.getLogger(__name__)


class FlatLayerwiseGPUConnector:
    """Moves KV cache layer by layer from a flat per-layer GPU layout
    ``[2, max_num_tokens, hidden_dim]`` into pinned memory objects."""

    def __init__(self, config: LayerwiseConnectorConfig):
        self.config = config
        self.num_layers = config.num_layers
        self.kvcaches: Optional[List[torch.Tensor]] = None
        self.store_stream = torch.cuda.Stream(device=config.device)
        self._staging: Optional[torch.Tensor] = None
        if config.use_gpu:
            self._staging = torch.empty(
                (2, config.max_num_tokens, config.hidden_dim_size),
                dtype=config.dtype,
                device=config.device,
            )

    def get_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([2, num_tokens, self.config.hidden_dim_size])

    def batched_from_gpu(
        self,
        memory_objs: List[List[MemoryObj]],
        starts: List[int],
        ends: List[int],
        **kwargs,
    ) -> Generator[None, None, None]:
        if "kvcaches" in kwargs:
            self.kvcaches = kwargs["kvcaches"]
        assert self.kvcaches is not None, "kvcaches were never registered"

        token_spans = list(zip(starts, ends, strict=True))
        current_stream = torch.cuda.current_stream()

        for layer_id in range(self.num_layers):
            memory_objs_layer = memory_objs[layer_id]
            kv_layer = self.kvcaches[layer_id]
            with torch.cuda.stream(self.store_stream):
                self.store_stream.wait_stream(current_stream)
                if self._staging is not None:
                    buf_spans = stage_layer(self._staging, kv_layer, token_spans)
                    copy_spans_to_host(memory_objs_layer, self._staging, buf_spans)
                else:
                    copy_spans_to_host(memory_objs_layer, kv_layer, token_spans)

            yield
            self.store_stream.synchronize()
            logger.debug("Finished offloading layer %d", layer_id)

        yield
