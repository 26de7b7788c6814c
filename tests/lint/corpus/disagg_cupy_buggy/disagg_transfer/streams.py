import threading
from typing import Optional

import cupy
import torch

_lock = threading.Lock()
_send_stream: Optional[cupy.cuda.Stream] = None


def get_send_stream() -> cupy.cuda.Stream:
    global _send_stream
    with _lock:
        if _send_stream is None:
            _send_stream = cupy.cuda.Stream(non_blocking=True)
        return _send_stream


def torch_compute_stream() -> cupy.cuda.ExternalStream:
    """The stream the PyTorch executor is issuing the forward pass on."""
    current = torch.cuda.current_stream()
    return cupy.cuda.ExternalStream(current.cuda_stream, current.device.index)
