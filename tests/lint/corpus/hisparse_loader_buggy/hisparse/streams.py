import threading
from typing import Optional

from numba import cuda

_lock = threading.Lock()
_streams: Optional["StreamPair"] = None


class StreamPair:
    """The decode (compute) stream and the page load stream."""

    def __init__(self):
        self.compute = cuda.stream()
        self.load = cuda.stream()


def get_stream_pair() -> StreamPair:
    global _streams
    with _lock:
        if _streams is None:
            _streams = StreamPair()
        return _streams
