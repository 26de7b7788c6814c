from numba import cuda


@cuda.jit
def beam_sum(samples, weights, out):
    beam, t = cuda.grid(2)
    if beam >= out.shape[0] or t >= out.shape[1]:
        return
    acc = 0.0
    for ch in range(samples.shape[0]):
        acc += weights[beam, ch] * samples[ch, t]
    out[beam, t] = acc


@cuda.jit
def scale_rows(out, gains):
    beam, t = cuda.grid(2)
    if beam >= out.shape[0] or t >= out.shape[1]:
        return
    out[beam, t] *= gains[beam]
