import math

from numba import cuda
from numba.cuda.random import xoroshiro128p_normal_float64


@cuda.jit
def mc_european(rng_states, spot, strike, vol, expiry, is_call, rate, paths_per_thread, out_sum):
    """One block per option; every thread simulates paths_per_thread terminal prices."""
    opt = cuda.blockIdx.x
    gid = opt * cuda.blockDim.x + cuda.threadIdx.x
    sigma = vol[opt]
    t = expiry[opt]
    drift = (rate - 0.5 * sigma * sigma) * t
    diffusion = sigma * math.sqrt(t)
    acc = 0.0
    for _ in range(paths_per_thread):
        z = xoroshiro128p_normal_float64(rng_states, gid)
        st = spot[opt] * math.exp(drift + diffusion * z)
        payoff = st - strike[opt] if is_call[opt] else strike[opt] - st
        if payoff > 0.0:
            acc += payoff
    cuda.atomic.add(out_sum, opt, acc)
