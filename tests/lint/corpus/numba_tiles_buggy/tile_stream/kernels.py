from numba import cuda


@cuda.jit
def tile_matvec(tile, rows, x, out, row0):
    i = cuda.grid(1)
    if i < rows:
        acc = 0.0
        for j in range(tile.shape[1]):
            acc += tile[i, j] * x[j]
        out[row0 + i] = acc
