"""A device-side embedding cache for recommender training, in the shape of UVM/host-backed
embedding caches: hot rows are trained on the GPU; a range of rows is swapped with the host
backing table by evicting it to pinned memory on one stream and filling it on another.
Bugs: the evict stream never waits for the SGD update, the host hands the staging rows to
the backing store before the eviction copy finished, and the fill waits only for the
eviction, a stream that is itself not ordered behind compute.
"""

import cupy
import cupyx
import numpy

from .kernels import sparse_sgd


class EmbeddingCache:
    def __init__(self, num_slots, dim, backing):
        self.dim = dim
        self.backing = backing
        self.table = cupy.zeros((num_slots, dim), dtype=cupy.float32)
        self.staging = cupyx.empty_pinned((num_slots, dim), dtype=numpy.float32)
        self.streams = {
            "compute": cupy.cuda.Stream(non_blocking=True),
            "evict": cupy.cuda.Stream(non_blocking=True),
            "fill": cupy.cuda.Stream(non_blocking=True),
        }
        self.updated = cupy.cuda.Event()
        self.filled = cupy.cuda.Event()

    def train_step(self, slots, grads, lr):
        compute = self.streams["compute"]
        compute.wait_event(self.filled)
        with compute:
            sparse_sgd(self.table, slots, grads, lr)
            self.updated.record()

    def swap_range(self, start, stop, new_row_ids, old_row_ids):
        evict = self.streams["evict"]
        rows = self.table[start:stop]
        # expect: KVG001
        rows.get(stream=evict, out=self.staging[start:stop], blocking=False)
        evicted = evict.record()
        # expect: KVG003
        self.backing.write_rows(old_row_ids, self.staging[start:stop].tobytes())
        self._fill(start, stop, new_row_ids, evicted)

    def _fill(self, start, stop, row_ids, evicted):
        fill = self.streams["fill"]
        host = self.staging[start:stop]
        self.backing.read_rows_into(row_ids, host)
        fill.wait_event(evicted)
        # expect: KVG004
        self.table[start:stop].set(host, stream=fill)
        self.filled.record(fill)
