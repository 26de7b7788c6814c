import math

from numba import cuda
from numba.cuda.random import xoroshiro128p_normal_float64


@cuda.jit
def baoab_integrate(x, v, rng_states, n_steps, dt, gamma, kT, k_spring):
    i = cuda.grid(1)
    if i >= x.shape[0]:
        return
    c1 = math.exp(-gamma * dt)
    c2 = math.sqrt((1.0 - c1 * c1) * kT)
    xi = x[i]
    vi = v[i]
    for _ in range(n_steps):
        vi -= 0.5 * dt * k_spring * xi
        xi += 0.5 * dt * vi
        vi = c1 * vi + c2 * xoroshiro128p_normal_float64(rng_states, i)
        xi += 0.5 * dt * vi
        vi -= 0.5 * dt * k_spring * xi
    x[i] = xi
    v[i] = vi


@cuda.jit
def zero_slot(out, slot):
    if cuda.grid(1) == 0:
        out[slot] = 0.0


@cuda.jit
def kinetic_energy(v, out, slot):
    i = cuda.grid(1)
    if i < v.shape[0]:
        cuda.atomic.add(out, slot, 0.5 * v[i] * v[i])


@cuda.jit
def count_nonfinite(x, flag):
    i = cuda.grid(1)
    if i < x.shape[0] and not math.isfinite(x[i]):
        cuda.atomic.add(flag, 0, 1)
