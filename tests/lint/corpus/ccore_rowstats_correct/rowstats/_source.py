from __future__ import annotations

from cuda.core.experimental import Device, Kernel, Program, ProgramOptions

BLOCK = 256

ROW_STATS_SRC = r"""
extern "C" __global__
void row_stats(const float* __restrict__ x, int rows, int cols,
               float* __restrict__ mean, float* __restrict__ maxabs)
{
    const int r = blockIdx.x;
    if (r >= rows) return;
    __shared__ float s_sum[256];
    __shared__ float s_max[256];
    float sum = 0.f, mx = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = x[(size_t)r * cols + c];
        sum += v;
        mx = fmaxf(mx, fabsf(v));
    }
    s_sum[threadIdx.x] = sum;
    s_max[threadIdx.x] = mx;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            s_sum[threadIdx.x] += s_sum[threadIdx.x + s];
            s_max[threadIdx.x] = fmaxf(s_max[threadIdx.x], s_max[threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        mean[r] = s_sum[0] / cols;
        maxabs[r] = s_max[0];
    }
}
"""


def build_row_stats(dev: Device) -> Kernel:
    arch = "".join(str(v) for v in dev.compute_capability)
    opts = ProgramOptions(std="c++17", arch=f"sm_{arch}")
    mod = Program(ROW_STATS_SRC, code_type="c++", options=opts).compile("cubin")
    return mod.get_kernel("row_stats")
