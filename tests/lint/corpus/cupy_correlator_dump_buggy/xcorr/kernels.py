"""Kernels of the X-engine: int4 unpacking of the F-engine packets and the cross-multiply
accumulate over time samples."""

import cupy

_UNPACK_SRC = r"""
#include <cupy/complex.cuh>
extern "C" __global__
void unpack_ci4(const unsigned char* __restrict__ raw, complex<float>* out, long long n) {
    long long i = (long long)blockDim.x * blockIdx.x + threadIdx.x;
    if (i >= n) return;
    unsigned char b = raw[i];
    float re = (float)((signed char)(b & 0xF0) >> 4);
    float im = (float)((signed char)(b << 4) >> 4);
    out[i] = complex<float>(re, im);
}
"""

unpack_ci4 = cupy.RawKernel(_UNPACK_SRC, "unpack_ci4")

# vis[c, i, j] += sum_t x[t, c, i] * conj(x[t, c, j]) is done one time sample per launch;
# the output parameter is also read, so it accumulates in place.
xmac = cupy.ElementwiseKernel(
    "raw complex64 x, int32 nant, int32 nchan",
    "complex64 vis",
    """
    int j = i % nant;
    int a = (i / nant) % nant;
    int c = i / (nant * nant);
    vis += x[c * nant + a] * conj(x[c * nant + j]);
    """,
    "xmac",
)
