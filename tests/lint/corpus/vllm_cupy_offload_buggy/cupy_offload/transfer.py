from __future__ import annotations

from typing import Sequence

import cupy

from .host_pool import HostBlockPool


def load_blocks(
    device_caches: Sequence[cupy.ndarray],
    host_pool: HostBlockPool,
    pairs: Sequence[tuple[int, int]],
    stream: cupy.cuda.Stream,
) -> None:
    """pairs: (host_block_id, device_block_id)."""
    for layer, device_cache in enumerate(device_caches):
        for host_id, device_id in pairs:
            # expect: KVG004
            device_cache[device_id].set(host_pool.block(layer, host_id), stream=stream)


def store_blocks(
    device_caches: Sequence[cupy.ndarray],
    host_pool: HostBlockPool,
    pairs: Sequence[tuple[int, int]],
    stream: cupy.cuda.Stream,
) -> None:
    """pairs: (device_block_id, host_block_id)."""
    for layer, device_cache in enumerate(device_caches):
        for device_id, host_id in pairs:
            device_cache[device_id].get(
                stream=stream, out=host_pool.block(layer, host_id), blocking=False
            )
