"""One GraphSAGE-mean layer over mini-batches whose input features come from the cache."""

import cupy
import numpy as np

_GATHER_MEAN = cupy.RawKernel(r"""
#include <cuda_fp16.h>
extern "C" __global__
void gather_mean(const __half* rows, const int* slot, const int* offsets,
                 float* out, int dim, int num_dst) {
    int d = blockIdx.x;
    if (d >= num_dst) return;
    int lo = offsets[d], hi = offsets[d + 1];
    for (int k = threadIdx.x; k < dim; k += blockDim.x) {
        float acc = 0.f;
        for (int e = lo; e < hi; ++e) acc += __half2float(rows[(long)slot[e] * dim + k]);
        out[(long)d * dim + k] = hi > lo ? acc / (hi - lo) : 0.f;
    }
}
""", "gather_mean")


class SageMeanLayer:
    def __init__(self, dim: int, out_dim: int, compute: cupy.cuda.Stream):
        self.dim = dim
        self.compute = compute
        with compute:
            self.weight = cupy.random.standard_normal((2 * dim, out_dim), dtype=cupy.float32) * 0.02

    def forward(self, rows: cupy.ndarray, nbr_slots: cupy.ndarray, self_slots: cupy.ndarray,
                offsets: np.ndarray) -> cupy.ndarray:
        num_dst = len(offsets) - 1
        with self.compute:
            d_offsets = cupy.asarray(offsets, dtype=cupy.int32)
            agg = cupy.empty((num_dst, self.dim), dtype=cupy.float32)
            _GATHER_MEAN((num_dst,), (128,),
                         (rows, nbr_slots, d_offsets, agg, np.int32(self.dim), np.int32(num_dst)))
            h_self = rows[self_slots].astype(cupy.float32)
            h = cupy.concatenate([h_self, agg], axis=1) @ self.weight
            return cupy.maximum(h, 0)
