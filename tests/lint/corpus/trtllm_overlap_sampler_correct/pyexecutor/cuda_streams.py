# SPDX-License-Identifier: Apache-2.0
"""Per-device auxiliary streams used by the PyTorch backend."""

import threading
from typing import Optional

import torch

from .constants import HOST_COPY_STREAM_PRIORITY

_lock = threading.Lock()
_host_copy_streams: dict[int, torch.cuda.Stream] = {}


def get_host_copy_stream(device: Optional[torch.device] = None) -> torch.cuda.Stream:
    """Return the process-wide D2H stream for ``device`` (created lazily)."""
    index = torch.cuda.current_device() if device is None else device.index
    with _lock:
        stream = _host_copy_streams.get(index)
        if stream is None:
            stream = torch.cuda.Stream(device=index, priority=HOST_COPY_STREAM_PRIORITY)
            _host_copy_streams[index] = stream
    return stream
