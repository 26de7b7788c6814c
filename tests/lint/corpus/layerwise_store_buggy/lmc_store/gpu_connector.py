# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Generator, List, Optional
import logging

# Third Party
import torch

# First Party
from lmc_store.gpu_ops import gather_layer_kv
from lmc_store.memory_management import MemoryFormat, MemoryObj

logger = logging.getLogger(__name__)


class VLLMPagedMemLayerwiseGPUConnector:
    """Moves vLLM paged KV cache into pinned memory objects layer by layer."""

    def __init__(
        self,
        hidden_dim_size: int,
        num_layers: int,
        dtype: torch.dtype,
        device: torch.device,
    ):
        self.hidden_dim_size = hidden_dim_size
        self.num_layers = num_layers
        self.dtype = dtype
        self.device = device
        self.store_stream = torch.cuda.Stream(device=device)
        self._tmp_buffer: Optional[torch.Tensor] = None

    def get_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([2, num_tokens, self.hidden_dim_size])

    def _get_tmp_buffer(self, num_tokens: int) -> torch.Tensor:
        if self._tmp_buffer is None or self._tmp_buffer.shape[1] < num_tokens:
            logger.info("Allocating layerwise GPU buffer for %d tokens", num_tokens)
            self._tmp_buffer = torch.empty(
                self.get_shape(num_tokens), dtype=self.dtype, device=self.device
            )
        return self._tmp_buffer

    def batched_from_gpu(
        self,
        memory_objs: List[List[MemoryObj]],
        starts: List[int],
        ends: List[int],
        **kwargs,
    ) -> Generator[None, None, None]:
        """Generator yielding num_layers + 1 times.

        Each step gathers one layer from paged memory into the GPU buffer and
        starts the copy into that layer's memory objects; the next step waits
        for the previous copy before reusing the buffer.
        """
        if "kvcaches" not in kwargs:
            raise ValueError("'kvcaches' is required in kwargs.")
        if "slot_mapping" not in kwargs:
            raise ValueError("'slot_mapping' is required in kwargs.")
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        slot_mapping: torch.Tensor = kwargs["slot_mapping"]

        slot_mapping_full = torch.cat(
            [slot_mapping[start:end] for start, end in zip(starts, ends)], dim=0
        )
        tmp_buffer = self._get_tmp_buffer(slot_mapping_full.numel())
        current_stream = torch.cuda.current_stream()
        self.store_stream.wait_stream(current_stream)

        for layer_id in range(self.num_layers):
            # kvcaches -> gpu buffer
            gather_layer_kv(tmp_buffer, kvcaches[layer_id], slot_mapping_full)

            # gpu buffer -> memory objects
            with torch.cuda.stream(self.store_stream):
                buf_start = 0
                for start, end, memory_obj in zip(starts, ends, memory_objs[layer_id]):
                    assert memory_obj.metadata.fmt == MemoryFormat.KV_2TD
                    buf_end = buf_start + end - start
                    # expect: KVG001
                    memory_obj.tensor.copy_(tmp_buffer[:, buf_start:buf_end], non_blocking=True)
                    buf_start = buf_end

            yield
            self.store_stream.synchronize()
            logger.debug("Finished offloading layer %d", layer_id)

        yield
