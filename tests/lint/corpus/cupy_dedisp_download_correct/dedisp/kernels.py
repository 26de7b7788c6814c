import cupy as cp

_SRC = r"""
extern "C" __global__
void dedisperse(const float* __restrict__ data, const int* __restrict__ delays,
                float* __restrict__ out, int nchan, int nsamp, int nsamp_out)
{
    int dm = blockIdx.y;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nsamp_out) return;
    float acc = 0.f;
    for (int c = 0; c < nchan; ++c)
        acc += data[(size_t)c * nsamp + t + delays[dm * nchan + c]];
    out[(size_t)dm * nsamp_out + t] = acc;
}
"""

dedisperse_kernel = cp.RawKernel(_SRC, "dedisperse")
