# SPDX-License-Identifier: Apache-2.0
"""Per-thread CuPy streams shared by the serializers and the remote backend."""
# Standard
import threading

# Third Party
import cupy
import torch

_local = threading.local()


def get_stream(name: str) -> cupy.cuda.Stream:
    streams = getattr(_local, "streams", None)
    if streams is None:
        streams = _local.streams = {}
    if name not in streams:
        streams[name] = cupy.cuda.Stream(non_blocking=True)
    return streams[name]


def record_compute_ready() -> cupy.cuda.Event:
    """Event on the engine's current torch stream (where the KV was produced)."""
    compute = cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
    return compute.record()
