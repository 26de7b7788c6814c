# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Generator, List, Tuple

# Third Party
import torch

# First Party
from lmc_store.memory_management import MemoryObj
from lmc_store.utils import get_store_stream, logger


class LayerwiseGPUConnector:
    """Moves paged KV of one layer at a time into pinned memory objects.

    The paged KV cache of a layer is a pair (k, v), each shaped
    [num_blocks, block_size, hidden_dim_size].
    """

    def __init__(self, hidden_dim_size: int, num_layers: int, device: torch.device):
        self.hidden_dim_size = hidden_dim_size
        self.num_layers = num_layers
        self.device = device
        self.store_stream = get_store_stream(device)

    def _gather_layer(
        self,
        kv_layer: Tuple[torch.Tensor, torch.Tensor],
        slot_chunks: List[torch.Tensor],
    ) -> List[torch.Tensor]:
        k, v = kv_layer
        k_flat = k.view(-1, self.hidden_dim_size)
        v_flat = v.view(-1, self.hidden_dim_size)
        packed = []
        for slots in slot_chunks:
            buf = torch.stack((k_flat[slots], v_flat[slots]))
            buf.record_stream(self.store_stream)
            packed.append(buf)
        return packed

    def batched_from_gpu(
        self,
        memory_objs: List[List[MemoryObj]],
        starts: List[int],
        ends: List[int],
        **kwargs,
    ) -> Generator[None, None, None]:
        if "kvcaches" not in kwargs:
            raise ValueError("'kvcaches' must be provided in kwargs.")
        if "slot_mapping" not in kwargs:
            raise ValueError("'slot_mapping' must be provided in kwargs.")

        kvcaches: List[Tuple[torch.Tensor, torch.Tensor]] = kwargs["kvcaches"]
        slot_mapping: torch.Tensor = kwargs["slot_mapping"]
        slot_chunks = [slot_mapping[s:e] for s, e in zip(starts, ends, strict=True)]

        current_stream = torch.cuda.current_stream()
        self.store_stream.wait_stream(current_stream)
        for layer_id in range(self.num_layers):
            packed = self._gather_layer(kvcaches[layer_id], slot_chunks)
            with torch.cuda.stream(self.store_stream):
                for memory_obj, buf in zip(memory_objs[layer_id], packed, strict=True):
                    # expect: KVG001
                    memory_obj.tensor.copy_(buf, non_blocking=True)
            logger.debug("Issued store of layer %d", layer_id)
            yield

        self.store_stream.synchronize()
        yield

    def get_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([2, num_tokens, self.hidden_dim_size])
