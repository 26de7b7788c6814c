# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Generator, List, Optional, Tuple
import logging

# Third Party
import torch

# First Party
from kvoffload.config import ConnectorConfig
from kvoffload.memory import MemoryObj
from kvoffload.transfer import copy_chunk_to_host, gather_layer_slots

logger = logging.getLogger(__name__)


class LayerwiseGPUConnector:
    def __init__(self, config: ConnectorConfig):
        self.config = config
        self.num_layers = config.num_layers
        self.kvcaches: Optional[List[torch.Tensor]] = None
        self.store_stream = torch.cuda.Stream()
        self._staging: Optional[torch.Tensor] = None

    def initialize_kvcaches_ptr(self, **kwargs) -> None:
        if self.kvcaches is None and "kvcaches" in kwargs:
            self.kvcaches = kwargs["kvcaches"]

    def _staging_view(self, num_tokens: int) -> torch.Tensor:
        if self._staging is None:
            logger.info("Lazily initializing GPU staging buffer.")
            self._staging = torch.empty(
                (2, self.config.max_staging_tokens, self.config.hidden_dim_size),
                dtype=self.config.kv_dtype,
                device=self.config.device,
            )
        return self._staging[:, :num_tokens]

    def batched_from_gpu(
        self,
        memory_objs: List[List[MemoryObj]],
        starts: List[int],
        ends: List[int],
        **kwargs,
    ) -> Generator[None, None, None]:
        """Yields num_layers + 1 times; layer i is offloaded after the i-th
        resume and waited on at the next one."""
        self.initialize_kvcaches_ptr(**kwargs)
        assert self.kvcaches is not None, "kvcaches must be provided"

        buf_ranges: List[Tuple[int, int]] = []
        slot_mapping_full: Optional[torch.Tensor] = None
        if self.config.paged_layout:
            if "slot_mapping" not in kwargs:
                raise ValueError("'slot_mapping' must be provided in kwargs.")
            slot_mapping: torch.Tensor = kwargs["slot_mapping"]
            buf_start = 0
            for start, end in zip(starts, ends, strict=False):
                buf_ranges.append((buf_start, buf_start + end - start))
                buf_start += end - start
            slot_mapping_full = torch.cat(
                [slot_mapping[s:e] for s, e in zip(starts, ends, strict=False)]
            )

        current_stream = torch.cuda.current_stream()
        for layer_id in range(self.num_layers):
            kv_layer = self.kvcaches[layer_id]
            with torch.cuda.stream(self.store_stream):
                self.store_stream.wait_stream(current_stream)
                if self.config.paged_layout:
                    assert slot_mapping_full is not None
                    src = self._staging_view(len(slot_mapping_full))
                    gather_layer_slots(kv_layer, slot_mapping_full, src)
                    ranges = buf_ranges
                else:
                    src = kv_layer
                    ranges = list(zip(starts, ends, strict=False))
                for (lo, hi), memory_obj in zip(
                    ranges, memory_objs[layer_id], strict=False
                ):
                    copy_chunk_to_host(memory_obj, src, lo, hi)

            yield
            self.store_stream.synchronize()
            logger.debug("Finished offloading layer %d", layer_id)

        yield
