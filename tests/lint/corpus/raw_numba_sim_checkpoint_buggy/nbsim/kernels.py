"""Explicit-Euler particle update, one thread per particle."""

from numba import cuda


@cuda.jit
def integrate(pos, vel, params, dt):
    i = cuda.grid(1)
    if i < pos.shape[0]:
        damping = params[0]
        gravity = params[1]
        vel[i, 1] -= gravity * dt
        vel[i, 0] *= damping
        vel[i, 1] *= damping
        pos[i, 0] += vel[i, 0] * dt
        pos[i, 1] += vel[i, 1] * dt
