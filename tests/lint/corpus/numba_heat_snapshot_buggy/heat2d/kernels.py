"""Explicit 2-D heat equation on a regular grid (5-point stencil, fixed boundary)."""

from numba import cuda


@cuda.jit
def diffuse(u, u_new, alpha):
    i, j = cuda.grid(2)
    ny, nx = u.shape
    if i >= ny or j >= nx:
        return
    if i == 0 or j == 0 or i == ny - 1 or j == nx - 1:
        u_new[i, j] = u[i, j]
        return
    lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
    u_new[i, j] = u[i, j] + alpha * lap


@cuda.jit
def add_heat(u, cy, cx, radius, power):
    i, j = cuda.grid(2)
    ny, nx = u.shape
    if i < ny and j < nx:
        dy = i - cy
        dx = j - cx
        if dy * dy + dx * dx <= radius * radius:
            u[i, j] += power
