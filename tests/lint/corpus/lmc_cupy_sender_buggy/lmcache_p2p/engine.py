# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import List
import logging

# Third Party
import cupy

# First Party
from .constants import P2P_CHUNK_TOKENS
from .sender import KVSender

logger = logging.getLogger(__name__)


class P2PStoreEngine:
    """Gathers a request's KV out of the paged cache and ships it to a peer."""

    def __init__(self, kv_caches: List[cupy.ndarray], sender: KVSender):
        # kv_caches[layer]: [2, num_slots, num_heads, head_dim]
        self.kv_caches = kv_caches
        self.sender = sender

    def store(self, request_id: str, slot_mapping: cupy.ndarray) -> int:
        chunks: List[cupy.ndarray] = []
        for start in range(0, slot_mapping.size, P2P_CHUNK_TOKENS):
            slots = slot_mapping[start : start + P2P_CHUNK_TOKENS]
            chunk = cupy.stack([cupy.take(kv, slots, axis=1) for kv in self.kv_caches])
            chunks.append(chunk)
        self.sender.submit(request_id, chunks)
        logger.debug("Queued %d chunks for %s", len(chunks), request_id)
        return len(chunks)
