"""GPU connector that packs vLLM paged KV blocks into LMCache memory objects."""

from typing import List

import torch

from .config import CHUNK_SIZE, STORE_STREAM
from .streams import StreamRegistry

try:
    import lmcache.c_ops as lmc_ops
except ImportError:  # pure-torch fallback used in CI
    lmc_ops = None


def gather_paged_kv(dst: torch.Tensor, kv_caches: List[torch.Tensor],
                    slot_mapping: torch.Tensor) -> torch.Tensor:
    """Pack the tokens addressed by `slot_mapping` out of the paged layout
    ([2, num_blocks, block_size, hidden] per layer) into dst [L, 2, T, hidden].
    Launches on the current stream."""
    if lmc_ops is not None:
        lmc_ops.multi_layer_kv_transfer(dst, kv_caches, slot_mapping,
                                        dst.device, True)
        return dst
    for layer_id, kv in enumerate(kv_caches):
        flat = kv.flatten(1, 2)
        torch.index_select(flat, 1, slot_mapping, out=dst[layer_id])
    return dst


class VLLMPagedMemGPUConnector:
    """Moves KV between vLLM's paged GPU cache and pinned LMCache buffers."""

    def __init__(self, kv_caches: List[torch.Tensor], streams: StreamRegistry):
        self.kv_caches = kv_caches
        self.streams = streams
        ref = kv_caches[0]
        self._staging = torch.empty(
            (len(kv_caches), 2, CHUNK_SIZE, ref.shape[-1]),
            dtype=ref.dtype, device=ref.device)

    def from_gpu(self, memory_obj, start: int, end: int,
                 slot_mapping: torch.Tensor) -> None:
        """Copy tokens [start, end) of the request into memory_obj.tensor."""
        num_tokens = end - start
        assert num_tokens <= CHUNK_SIZE
        staging = self._staging[:, :, :num_tokens]
        gather_paged_kv(staging, self.kv_caches, slot_mapping[start:end])
        store_stream = self.streams.fence(STORE_STREAM)
        with torch.cuda.stream(store_stream):
            memory_obj.tensor.copy_(staging, non_blocking=True)
        # staging is reused by the next chunk; drain before returning
        store_stream.synchronize()
