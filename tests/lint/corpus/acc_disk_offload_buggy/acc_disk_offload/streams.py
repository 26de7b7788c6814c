"""Per-device side streams shared by the offload hooks."""
import threading

import torch

from .offload_config import OFFLOAD_STREAM_PRIORITY

_STREAMS: dict[tuple[str, int], torch.cuda.Stream] = {}
_LOCK = threading.Lock()


def get_stream(name: str, device: torch.device) -> torch.cuda.Stream:
    key = (name, device.index or 0)
    with _LOCK:
        stream = _STREAMS.get(key)
        if stream is None:
            stream = torch.cuda.Stream(device=device, priority=OFFLOAD_STREAM_PRIORITY)
            _STREAMS[key] = stream
    return stream


def order_after_compute(stream: torch.cuda.Stream) -> torch.cuda.Stream:
    """Make `stream` see all work already queued on the device's current stream."""
    stream.wait_stream(torch.cuda.current_stream(stream.device))
    return stream
