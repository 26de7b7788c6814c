from numba import cuda, float32

TILE = 16


@cuda.jit
def matmul_tile(a, b, c, rows):
    sa = cuda.shared.array((TILE, TILE), dtype=float32)
    sb = cuda.shared.array((TILE, TILE), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = float32(0.0)
    for k0 in range(0, a.shape[1], TILE):
        sa[tx, ty] = 0.0
        sb[tx, ty] = 0.0
        if x < rows and k0 + ty < a.shape[1]:
            sa[tx, ty] = a[x, k0 + ty]
        if y < b.shape[1] and k0 + tx < b.shape[0]:
            sb[tx, ty] = b[k0 + tx, y]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[tx, k] * sb[k, ty]
        cuda.syncthreads()
    if x < rows and y < c.shape[1]:
        c[x, y] = acc
