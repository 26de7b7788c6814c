"""5-point Laplacian on an n x n grid with Dirichlet boundary, as a CSR matrix on the GPU."""
import cupy
import cupyx.scipy.sparse as sp


def laplacian_2d(n, dtype=cupy.float64):
    main = 4.0 * cupy.ones(n * n, dtype=dtype)
    side = -cupy.ones(n * n - 1, dtype=dtype)
    side[cupy.arange(1, n * n) % n == 0] = 0.0
    updown = -cupy.ones(n * n - n, dtype=dtype)
    return sp.diags([main, side, side, updown, updown], [0, -1, 1, -n, n], format="csr")
