import math

from numba import cuda


@cuda.jit
def kick(pos, vel, mass, dt, eps2):
    """All-pairs gravity, one body per thread: updates velocities only."""
    i = cuda.grid(1)
    n = pos.shape[0]
    if i >= n:
        return
    ax = 0.0
    ay = 0.0
    az = 0.0
    for j in range(n):
        dx = pos[j, 0] - pos[i, 0]
        dy = pos[j, 1] - pos[i, 1]
        dz = pos[j, 2] - pos[i, 2]
        inv = 1.0 / math.sqrt(dx * dx + dy * dy + dz * dz + eps2)
        s = mass[j] * inv * inv * inv
        ax += dx * s
        ay += dy * s
        az += dz * s
    vel[i, 0] += ax * dt
    vel[i, 1] += ay * dt
    vel[i, 2] += az * dt


@cuda.jit
def drift(pos, vel, dt):
    i = cuda.grid(1)
    if i < pos.shape[0]:
        for d in range(3):
            pos[i, d] += vel[i, d] * dt
