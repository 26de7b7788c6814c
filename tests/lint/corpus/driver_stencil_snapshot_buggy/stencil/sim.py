"""2-D heat diffusion, Jacobi iterations on two device grids used in turn."""
from cuda.bindings import driver as cu

from .drv import F32, I32, ck, compile_module, launch

_SRC = r"""
extern "C" __global__ void jacobi(const float* __restrict__ cur, float* __restrict__ nxt,
                                  int nx, int ny, float alpha) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= nx - 1 || y >= ny - 1) return;
    int i = y * nx + x;
    nxt[i] = cur[i] + alpha * (cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx] - 4.f * cur[i]);
}
"""


class HeatSim:
    def __init__(self, nx: int, ny: int, alpha: float = 0.2, arch: str = "compute_80"):
        self.nx, self.ny, self.alpha = nx, ny, alpha
        self.nbytes = nx * ny * 4
        self.compute = ck(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING))
        self._fn = ck(cu.cuModuleGetFunction(compile_module(_SRC, "jacobi.cu", arch), b"jacobi"))
        self._grids = [ck(cu.cuMemAlloc(self.nbytes)), ck(cu.cuMemAlloc(self.nbytes))]
        for g in self._grids:
            ck(cu.cuMemsetD32Async(g, 0, nx * ny, self.compute))
        self._cur = 0
        self.steps = 0

    @property
    def current(self) -> cu.CUdeviceptr:
        return self._grids[self._cur]

    def step(self, n: int = 1) -> None:
        block = (16, 16)
        grid = ((self.nx + 15) // 16, (self.ny + 15) // 16)
        for _ in range(n):
            src, dst = self._grids[self._cur], self._grids[1 - self._cur]
            launch(self._fn, grid, block, (src, dst, self.nx, self.ny, self.alpha),
                   (None, None, I32, I32, F32))
            self._cur = 1 - self._cur
            self.steps += 1
