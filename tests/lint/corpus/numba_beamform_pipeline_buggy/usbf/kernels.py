"""Delay-and-sum receive beamforming of one plane-wave frame (one thread per pixel)."""
import math

from numba import cuda


@cuda.jit
def delay_and_sum(rf, delays, apod, image):
    pix = cuda.grid(1)
    if pix >= image.shape[0]:
        return
    n_elem, n_samp = rf.shape
    acc = 0.0
    for e in range(n_elem):
        t = delays[pix, e]
        i = int(t)
        if 0 <= i < n_samp - 1:
            frac = t - i
            sample = rf[e, i] * (1.0 - frac) + rf[e, i + 1] * frac
            acc += apod[pix, e] * sample
    image[pix] = math.fabs(acc)


@cuda.jit
def log_compress(image, ref, dynamic_range_db):
    pix = cuda.grid(1)
    if pix >= image.shape[0]:
        return
    db = 20.0 * math.log10(max(image[pix], 1e-12) / ref)
    image[pix] = max(db, -dynamic_range_db)
