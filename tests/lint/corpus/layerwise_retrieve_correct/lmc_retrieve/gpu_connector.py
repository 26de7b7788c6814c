# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Generator, List, Optional, Tuple
import logging

# Third Party
import torch

# First Party
from lmc_retrieve.device import create_side_stream, device_module
from lmc_retrieve.gpu_ops import scatter_layer_kv
from lmc_retrieve.memory_management import MemoryFormat, MemoryObj

logger = logging.getLogger(__name__)


class VLLMBufferLayerwiseGPUConnector:
    """Loads memory objects into paged KV cache through two GPU buffers."""

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
        self.device_module = device_module(device)
        self.load_stream = create_side_stream(device)
        self._buffers: Optional[Tuple[torch.Tensor, torch.Tensor]] = None

    def get_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([2, num_tokens, self.hidden_dim_size])

    def _lazy_initialize_buffers(self, num_tokens: int) -> Tuple[torch.Tensor, torch.Tensor]:
        if self._buffers is None or self._buffers[0].shape[1] < num_tokens:
            logger.info("Lazily initializing GPU buffers (%d tokens).", num_tokens)
            shape = self.get_shape(num_tokens)
            self._buffers = (
                torch.empty(shape, dtype=self.dtype, device=self.device),
                torch.empty(shape, dtype=self.dtype, device=self.device),
            )
        return self._buffers

    def batched_to_gpu(
        self, starts: List[int], ends: List[int], **kwargs
    ) -> Generator[None, List[MemoryObj], None]:
        """Generator: send the memory objects of layer i at step i.

        After the last layer it yields once more, when every load is done.
        """
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        slot_mapping: torch.Tensor = kwargs["slot_mapping"]
        slot_mapping_full = torch.cat(
            [slot_mapping[start:end] for start, end in zip(starts, ends)], dim=0
        )
        buffers = self._lazy_initialize_buffers(slot_mapping_full.numel())
        current_stream = self.device_module.current_stream()

        for layer_id in range(self.num_layers):
            memory_objs_layer = yield
            load_buffer = buffers[layer_id % 2]

            # memobj -> gpu buffer
            self.load_stream.wait_stream(current_stream)
            with self.device_module.stream(self.load_stream):
                buf_start = 0
                for start, end, memory_obj in zip(starts, ends, memory_objs_layer):
                    assert memory_obj.metadata.fmt == MemoryFormat.KV_2TD
                    buf_end = buf_start + end - start
                    load_buffer[:, buf_start:buf_end].copy_(memory_obj.tensor, non_blocking=True)
                    buf_start = buf_end

            # gpu buffer -> kvcaches
            current_stream.wait_stream(self.load_stream)
            scatter_layer_kv(kvcaches[layer_id], load_buffer, slot_mapping_full)
            logger.debug("Issued load of layer %d", layer_id)

        self.load_stream.synchronize()
        yield
