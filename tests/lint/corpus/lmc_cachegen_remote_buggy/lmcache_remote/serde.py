# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
import logging
import struct

# Third Party
import cupy
import cupyx
import numpy as np

# First Party
from lmcache_remote.cuda_context import get_stream

logger = logging.getLogger(__name__)

_EPS = 1e-6
_HEADER = struct.Struct("<4sBI4I")


@dataclass
class EncodedChunk:
    shape: tuple
    scales: np.ndarray  # pinned, float32
    payload: np.ndarray  # pinned, int8
    copied: cupy.cuda.Event
    device_refs: tuple = ()  # keeps GPU sources alive until ``copied`` fires

    def header(self) -> bytes:
        dims = (tuple(self.shape) + (0, 0, 0, 0))[:4]
        return _HEADER.pack(b"CGL1", len(self.shape), self.scales.size, *dims)


class CacheGenLiteSerializer:
    """Per-channel symmetric int8 quantization on the GPU, then D2H."""

    def __init__(self, quant_bits: int = 8):
        if quant_bits != 8:
            raise ValueError("cachegen_lite only supports 8-bit")
        self.qmax = float(2 ** (quant_bits - 1) - 1)

    def encode_async(self, kv: cupy.ndarray, ready: cupy.cuda.Event) -> EncodedChunk:
        encode_stream = get_stream("encode")
        d2h_stream = get_stream("d2h")

        encode_stream.wait_event(ready)
        with encode_stream:
            absmax = cupy.abs(kv).max(axis=-1, keepdims=True).astype(cupy.float32)
            scales = absmax / self.qmax + _EPS
            q = cupy.clip(cupy.rint(kv / scales), -self.qmax, self.qmax).astype(cupy.int8)
            encoded = encode_stream.record()

        scales_host = cupyx.empty_pinned(scales.shape, dtype=np.float32)
        payload = cupyx.empty_pinned(q.shape, dtype=np.int8)
        # expect: KVG001
        cupy.asnumpy(scales, stream=d2h_stream, out=scales_host, blocking=False)
        d2h_stream.wait_event(encoded)
        q.get(stream=d2h_stream, out=payload, blocking=False)
        copied = d2h_stream.record()
        return EncodedChunk(tuple(kv.shape), scales_host, payload, copied, (q, scales))
