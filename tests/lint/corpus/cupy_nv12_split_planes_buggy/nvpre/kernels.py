"""BT.709 limited-range RGB -> NV12 kernels."""
import cupy

_SOURCE = r"""
extern "C" __global__
void rgb_to_y(const unsigned char* rgb, unsigned char* y, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || r >= height) return;
    const unsigned char* p = rgb + 3 * (r * width + x);
    float v = 16.f + 0.1826f * p[0] + 0.6142f * p[1] + 0.0620f * p[2];
    y[r * width + x] = (unsigned char)fminf(fmaxf(v, 0.f), 255.f);
}

extern "C" __global__
void rgb_to_uv(const unsigned char* rgb, unsigned char* uv, int width, int height) {
    int cx = blockIdx.x * blockDim.x + threadIdx.x;     // chroma column (one per 2 pixels)
    int cr = blockIdx.y * blockDim.y + threadIdx.y;     // chroma row (one per 2 rows)
    if (2 * cx >= width || 2 * cr >= height) return;
    float r = 0.f, g = 0.f, b = 0.f;
    for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) {
            const unsigned char* p = rgb + 3 * ((2 * cr + dy) * width + 2 * cx + dx);
            r += p[0]; g += p[1]; b += p[2];
        }
    r *= 0.25f; g *= 0.25f; b *= 0.25f;
    float u = 128.f - 0.1006f * r - 0.3386f * g + 0.4392f * b;
    float v = 128.f + 0.4392f * r - 0.3989f * g - 0.0403f * b;
    uv[cr * width + 2 * cx] = (unsigned char)fminf(fmaxf(u, 0.f), 255.f);
    uv[cr * width + 2 * cx + 1] = (unsigned char)fminf(fmaxf(v, 0.f), 255.f);
}
"""

_module = cupy.RawModule(code=_SOURCE)
rgb_to_y = _module.get_function("rgb_to_y")
rgb_to_uv = _module.get_function("rgb_to_uv")
