import numpy as np
from numba import cuda

from ooc.kernels import matmul_tile
from ooc.plan import TilePlan


class OutOfCoreMatmul:
    def __init__(self, k, n, tile_rows=8192):
        self.k, self.n, self.tile_rows = k, n, tile_rows
        self.upload = cuda.stream()
        self.compute = cuda.stream()
        self.download = cuda.stream()
        self.h_a = [cuda.pinned_array((tile_rows, k), dtype=np.float32) for _ in range(2)]
        self.d_a = [cuda.device_array((tile_rows, k), dtype=np.float32) for _ in range(2)]
        self.d_c = [cuda.device_array((tile_rows, n), dtype=np.float32) for _ in range(2)]
        self.uploaded = [cuda.event(timing=False) for _ in range(2)]
        self.consumed = [cuda.event(timing=False) for _ in range(2)]
        self.drained = [cuda.event(timing=False) for _ in range(2)]
        self.b_ready = cuda.event(timing=False)

    def __call__(self, a, b):
        m = a.shape[0]
        plan = TilePlan(m, self.k, self.n, self.tile_rows)
        out = cuda.pinned_array((m, self.n), dtype=np.float32)
        d_b = cuda.to_device(np.ascontiguousarray(b, dtype=np.float32), stream=self.upload)
        self.b_ready.record(self.upload)
        self.b_ready.wait(self.compute)
        for t in range(plan.num_tiles):
            s = t % 2
            lo, hi = plan.rows(t)
            rows = hi - lo
            # the host staging slot is refilled below: its previous upload must have finished
            self.uploaded[s].synchronize()
            self.h_a[s][:rows] = a[lo:hi]
            # expect: KVG004
            self.d_a[s].copy_to_device(self.h_a[s], stream=self.upload)
            self.uploaded[s].record(self.upload)

            self.uploaded[s].wait(self.compute)
            # d_c[s] is still being downloaded for tile t-2
            self.drained[s].wait(self.compute)
            blocks, threads = plan.grid(rows)
            matmul_tile[blocks, threads, self.compute](self.d_a[s], d_b, self.d_c[s], rows)
            self.consumed[s].record(self.compute)

            self.consumed[s].wait(self.download)
            self.d_c[s][:rows].copy_to_host(out[lo:hi], stream=self.download)
            self.drained[s].record(self.download)
        self.download.synchronize()
        return out
