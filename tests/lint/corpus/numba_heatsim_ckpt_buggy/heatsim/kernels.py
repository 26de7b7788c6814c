from __future__ import annotations

import math

from numba import cuda


@cuda.jit(fastmath=True)
def diffuse(u_in, u_out, r):
    """One explicit FTCS step with fixed (Dirichlet) boundaries."""
    i, j = cuda.grid(2)
    nx, ny = u_in.shape
    if i >= nx or j >= ny:
        return
    if i == 0 or j == 0 or i == nx - 1 or j == ny - 1:
        u_out[i, j] = u_in[i, j]
        return
    lap = u_in[i - 1, j] + u_in[i + 1, j] + u_in[i, j - 1] + u_in[i, j + 1] - 4.0 * u_in[i, j]
    u_out[i, j] = u_in[i, j] + r * lap


@cuda.jit
def inject_source(u, cx, cy, radius, amplitude):
    i, j = cuda.grid(2)
    nx, ny = u.shape
    if i < nx and j < ny:
        d = math.sqrt((i - cx) ** 2 + (j - cy) ** 2)
        if d <= radius:
            u[i, j] += amplitude
