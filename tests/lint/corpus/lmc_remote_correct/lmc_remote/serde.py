import struct

import numpy as np

from lmc_remote.constants import SERDE_MAGIC


class NaiveSerializer:
    """Header (magic, ndim, shape) followed by the raw array bytes."""

    def serialize(self, arr: np.ndarray) -> bytes:
        header = SERDE_MAGIC + struct.pack(f"<I{arr.ndim}I", arr.ndim, *arr.shape)
        return header + arr.tobytes()

    def deserialize(self, payload: bytes, dtype: np.dtype) -> np.ndarray:
        if payload[:4] != SERDE_MAGIC:
            raise ValueError("corrupted KV chunk")
        (ndim,) = struct.unpack_from("<I", payload, 4)
        shape = struct.unpack_from(f"<{ndim}I", payload, 8)
        return np.frombuffer(payload, dtype=dtype, offset=8 + 4 * ndim).reshape(shape)
