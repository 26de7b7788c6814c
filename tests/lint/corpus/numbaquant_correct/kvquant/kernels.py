import math

from numba import cuda, float32

from kvquant.constants import QMAX, THREADS_PER_BLOCK


@cuda.jit
def row_absmax(src, scales):
    row = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    smem = cuda.shared.array(THREADS_PER_BLOCK, float32)
    m = float32(0.0)
    for col in range(tid, src.shape[1], cuda.blockDim.x):
        m = max(m, abs(src[row, col]))
    smem[tid] = m
    cuda.syncthreads()
    step = cuda.blockDim.x // 2
    while step > 0:
        if tid < step:
            smem[tid] = max(smem[tid], smem[tid + step])
        cuda.syncthreads()
        step //= 2
    if tid == 0:
        scales[row] = smem[0] / QMAX if smem[0] > 0 else float32(1.0)


@cuda.jit
def quantize_rows(src, scales, out):
    row, col = cuda.grid(2)
    if row < src.shape[0] and col < src.shape[1]:
        q = math.floor(src[row, col] / scales[row] + 0.5)
        out[row, col] = min(QMAX, max(-QMAX, q))
