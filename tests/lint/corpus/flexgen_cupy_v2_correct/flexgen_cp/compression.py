from typing import Tuple

import numpy as np

from .policy import CompressionConfig


def compress_host_cache(host_kv: np.ndarray, config: CompressionConfig, ready) -> Tuple[np.ndarray, np.ndarray]:
    """Symmetric group-wise quantization of one host kv slab once `ready` has fired."""
    ready.synchronize()
    groups = host_kv.reshape(-1, config.group_size)
    qmax = float(2 ** (config.num_bits - 1) - 1)
    values = groups.astype(np.float32)
    scale = np.maximum(np.abs(values).max(axis=1, keepdims=True) / qmax, 1e-8)
    packed = np.clip(np.rint(values / scale), -qmax, qmax).astype(np.int8)
    return packed, scale.astype(np.float16)


def decompress_host_cache(packed: np.ndarray, scale: np.ndarray, shape) -> np.ndarray:
    return (packed.astype(np.float32) * scale.astype(np.float32)).astype(np.float16).reshape(shape)
