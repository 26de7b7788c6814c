"""Per-device named streams shared by the spill components."""

import threading
from typing import Dict, Tuple

import cupy

_lock = threading.Lock()
_streams: Dict[Tuple[int, str], cupy.cuda.Stream] = {}

COMPUTE = "compute"
OFFLOAD = "offload"


def get_stream(name: str) -> cupy.cuda.Stream:
    key = (cupy.cuda.runtime.getDevice(), name)
    with _lock:
        stream = _streams.get(key)
        if stream is None:
            stream = cupy.cuda.Stream(non_blocking=True)
            _streams[key] = stream
        return stream
