# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Dict
import threading

# Third Party
import cupy


class CodecStreams:
    """One quantization stream and one device-to-host stream per device."""

    def __init__(self, device_id: int):
        self.device_id = device_id
        with cupy.cuda.Device(device_id):
            self.compute = cupy.cuda.Stream(non_blocking=True)
            self.d2h = cupy.cuda.Stream(non_blocking=True)


_STREAMS: Dict[int, CodecStreams] = {}
_LOCK = threading.Lock()


def get_codec_streams(device_id: int) -> CodecStreams:
    with _LOCK:
        if device_id not in _STREAMS:
            _STREAMS[device_id] = CodecStreams(device_id)
        return _STREAMS[device_id]
