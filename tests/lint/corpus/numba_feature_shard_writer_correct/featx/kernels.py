import math

from numba import cuda


@cuda.jit
def frame_log_energy(signal, n_valid, out, hop, win, clip_level, clipped):
    """One thread per frame: log energy of a window of ``win`` samples every ``hop``.
    Samples at or above ``clip_level`` are counted in ``clipped[0]`` (a mapped counter)."""
    f = cuda.grid(1)
    if f >= out.shape[0]:
        return
    start = f * hop
    acc = 0.0
    n_clip = 0
    for k in range(win):
        j = start + k
        if j < n_valid:
            x = signal[j]
            acc += x * x
            if abs(x) >= clip_level:
                n_clip += 1
    out[f] = math.log(acc / win + 1e-10)
    if n_clip:
        cuda.atomic.add(clipped, 0, n_clip)
