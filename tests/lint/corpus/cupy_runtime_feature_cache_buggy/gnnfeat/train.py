"""Inference over all target nodes: a sampler thread produces neighbourhood mini-batches,
the main thread loads their features into the cache and runs the layer."""

import queue
import threading
from typing import Iterator, Optional, Tuple

import cupy
import numpy as np

from gnnfeat.device_cache import DeviceFeatureCache
from gnnfeat.host_table import HostFeatureTable
from gnnfeat.sage import SageMeanLayer

Batch = Tuple[np.ndarray, np.ndarray, np.ndarray]


def sample_batches(indptr: np.ndarray, indices: np.ndarray, batch_size: int, fanout: int,
                   seed: int = 0) -> Iterator[Batch]:
    rng = np.random.default_rng(seed)
    targets = np.arange(len(indptr) - 1)
    for lo in range(0, len(targets), batch_size):
        dst = targets[lo:lo + batch_size]
        nbrs, offsets = [], [0]
        for v in dst:
            adj = indices[indptr[v]:indptr[v + 1]]
            pick = rng.choice(adj, size=min(fanout, len(adj)), replace=False) if len(adj) else adj
            nbrs.append(pick)
            offsets.append(offsets[-1] + len(pick))
        yield dst, np.concatenate(nbrs) if nbrs else np.empty(0, np.int64), np.asarray(offsets)


def _producer(batches: Iterator[Batch], out: "queue.Queue[Optional[Batch]]") -> None:
    for b in batches:
        out.put(b)
    out.put(None)


def run(feature_path: str, indptr: np.ndarray, indices: np.ndarray, cache_slots: int = 1 << 18,
        batch_size: int = 1024, fanout: int = 10) -> np.ndarray:
    table = HostFeatureTable(feature_path)
    compute = cupy.cuda.Stream(non_blocking=True)
    cache = DeviceFeatureCache(table, cache_slots, compute)
    layer = SageMeanLayer(table.dim, 128, compute)
    q: "queue.Queue[Optional[Batch]]" = queue.Queue(maxsize=4)
    threading.Thread(target=_producer, args=(sample_batches(indptr, indices, batch_size, fanout), q),
                     daemon=True).start()
    outputs = []
    while True:
        batch = q.get()
        if batch is None:
            break
        dst, nbrs, offsets = batch
        uniq, inv = np.unique(np.concatenate([dst, nbrs]), return_inverse=True)
        slots = cache.lookup(uniq)
        with compute:
            d_inv = cupy.asarray(inv.astype(np.int32))
            self_slots = slots[d_inv[:len(dst)]]
            nbr_slots = slots[d_inv[len(dst):]]
        h = layer.forward(cache.rows, nbr_slots, self_slots, offsets)
        outputs.append(h)
    with compute:
        result = cupy.concatenate(outputs).get()
    cache.close()
    table.close()
    return result
