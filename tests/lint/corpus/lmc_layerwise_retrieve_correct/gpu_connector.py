"""Layer-wise GPU connector: CPU memory objects -> staging -> paged KV."""

from typing import Generator, List

import torch

from .config import MAX_RETRIEVE_TOKENS, NUM_STAGING_SLOTS
from .staging import StagingRing


def scatter_to_paged(kv_layer: torch.Tensor, src: torch.Tensor,
                     slot_mapping: torch.Tensor) -> None:
    """Write src [2, T, hidden] into the paged layer cache
    ([2, num_blocks, block_size, hidden]) at `slot_mapping`."""
    kv_layer.flatten(1, 2).index_copy_(1, slot_mapping, src)


class VLLMPagedMemLayerwiseGPUConnector:
    def __init__(self, kv_caches: List[torch.Tensor]):
        self.kv_caches = kv_caches
        ref = kv_caches[0]
        self.load_stream = torch.cuda.Stream(device=ref.device)
        self.ring = StagingRing(NUM_STAGING_SLOTS,
                                (2, MAX_RETRIEVE_TOKENS, ref.shape[-1]),
                                ref.dtype, ref.device)

    def batched_to_gpu(self, layer_objs, slot_mapping: torch.Tensor
                       ) -> Generator[int, None, None]:
        """Yields after each layer's KV has been queued into the paged cache,
        so the model can run that layer's attention before the next load."""
        compute = torch.cuda.current_stream()
        num_tokens = slot_mapping.numel()
        for layer_id, obj in enumerate(layer_objs):
            with torch.cuda.stream(self.load_stream):
                slot, buf = self.ring.acquire(self.load_stream)
                dst = buf[:, :num_tokens]
                dst.copy_(obj.tensor, non_blocking=True)
                loaded = torch.cuda.Event()
                loaded.record(self.load_stream)
            compute.wait_event(loaded)
            scatter_to_paged(self.kv_caches[layer_id], dst, slot_mapping)
            self.ring.release(slot, compute)
            yield layer_id
