# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Dict, NamedTuple
import hashlib
import logging
import threading

# Third Party
import torch

logger = logging.getLogger("lmc_store")

_STREAM_LOCK = threading.Lock()
_STORE_STREAMS: Dict[int, torch.cuda.Stream] = {}


class CacheEngineKey(NamedTuple):
    model_name: str
    layer_id: int
    chunk_hash: str


def chunk_hash(prefix_hash: str, tokens) -> str:
    h = hashlib.sha256(prefix_hash.encode())
    h.update(",".join(str(t) for t in tokens).encode())
    return h.hexdigest()


def get_store_stream(device: torch.device) -> torch.cuda.Stream:
    """One low-priority store stream per device, shared by connectors."""
    idx = device.index if device.index is not None else torch.cuda.current_device()
    with _STREAM_LOCK:
        stream = _STORE_STREAMS.get(idx)
        if stream is None:
            stream = torch.cuda.Stream(device=idx, priority=0)
            _STORE_STREAMS[idx] = stream
            logger.debug("Created store stream for cuda:%d", idx)
        return stream
