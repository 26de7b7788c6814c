"""Stochastic SIR dynamics, one thread per region of one ensemble member. The per-region
transmission and recovery rates are a table shared by all members."""

import math

from numba import cuda
from numba.cuda.random import xoroshiro128p_uniform_float32


@cuda.jit(device=True)
def _binomial_approx(n, p, rng, tid):
    # normal approximation, good enough for the large compartments simulated here
    mean = n * p
    sd = math.sqrt(max(mean * (1.0 - p), 0.0))
    u1 = max(xoroshiro128p_uniform_float32(rng, tid), 1e-7)
    u2 = xoroshiro128p_uniform_float32(rng, tid)
    z = math.sqrt(-2.0 * math.log(u1)) * math.cos(6.2831853 * u2)
    return min(max(mean + sd * z, 0.0), n)


@cuda.jit
def sir_step(state, params, rng, dt):
    r = cuda.grid(1)
    if r >= state.shape[0]:
        return
    s, i, rec = state[r, 0], state[r, 1], state[r, 2]
    n = s + i + rec
    beta, gamma = params[r, 0], params[r, 1]
    p_inf = 1.0 - math.exp(-beta * dt * i / max(n, 1.0))
    p_rec = 1.0 - math.exp(-gamma * dt)
    new_inf = _binomial_approx(s, p_inf, rng, r)
    new_rec = _binomial_approx(i, p_rec, rng, r)
    state[r, 0] = s - new_inf
    state[r, 1] = i + new_inf - new_rec
    state[r, 2] = rec + new_rec
