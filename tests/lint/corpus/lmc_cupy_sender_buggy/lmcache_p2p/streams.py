# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Dict
import threading

# Third Party
import cupy

_TRANSFER_STREAMS: Dict[int, cupy.cuda.Stream] = {}
_LOCK = threading.Lock()


def get_transfer_stream(device_id: int) -> cupy.cuda.Stream:
    """One non-blocking transfer stream per device, shared by all senders."""
    with _LOCK:
        stream = _TRANSFER_STREAMS.get(device_id)
        if stream is None:
            with cupy.cuda.Device(device_id):
                stream = cupy.cuda.Stream(non_blocking=True)
            _TRANSFER_STREAMS[device_id] = stream
        return stream
