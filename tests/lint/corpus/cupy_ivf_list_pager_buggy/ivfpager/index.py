"""A minimal IVF-flat index over the pager: add() appends to lists, search() scans them."""
from typing import List

import cupy

from .pager import ListPager

_APPEND = cupy.ElementwiseKernel(
    "raw T src, int32 row0, int32 dim", "raw T dst",
    "dst[(row0 * dim) + i] = src[i]", "ivf_append")


class GpuIvfIndex:
    def __init__(self, centroids: cupy.ndarray, gpu_slots: int = 256, host_slots: int = 4096,
                 slot_rows: int = 2048):
        self.centroids = centroids                         # (nlist, dim) float16 on the GPU
        self.pager = ListPager(gpu_slots, host_slots, slot_rows, centroids.shape[1])
        self.lengths = [0] * centroids.shape[0]

    def _after_caller(self) -> None:
        # inputs were produced on the caller's stream, which compute is not ordered behind
        self.pager.compute.wait_event(cupy.cuda.get_current_stream().record())

    def add(self, list_id: int, vectors: cupy.ndarray) -> None:
        self._after_caller()
        slot = self.pager.fetch([list_id])[list_id]
        n, dim = vectors.shape
        with self.pager.compute:
            dst = self.pager.gpu.vectors[slot]
            _APPEND(vectors.ravel(), self.lengths[list_id], dim, dst, size=n * dim)
        self.lengths[list_id] += n

    def search(self, queries: cupy.ndarray, nprobe: int = 8, k: int = 10):
        self._after_caller()
        with self.pager.compute:
            coarse = cupy.argsort(-(queries @ self.centroids.T), axis=1)[:, :nprobe]
            probe: List[int] = sorted(set(cupy.asnumpy(coarse).ravel().tolist()))
        slots = self.pager.fetch(probe)
        with self.pager.compute:
            best = []
            for list_id in probe:
                rows = self.pager.gpu.vectors[slots[list_id], : self.lengths[list_id]]
                best.append(queries @ rows.T)
            scores = cupy.concatenate(best, axis=1)
            top = cupy.argsort(-scores, axis=1)[:, :k]
        return top

    def spill_cold(self, count: int) -> List[int]:
        return self.pager.evict(count)
