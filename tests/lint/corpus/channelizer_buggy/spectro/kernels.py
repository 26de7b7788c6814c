from numba import cuda


@cuda.jit
def detect_and_integrate(spectra, integrate, out):
    """out[r, c] = sum over `integrate` spectra of |spectra[r*integrate + k, c]|^2."""
    idx = cuda.grid(1)
    rows, chans = out.shape
    if idx >= rows * chans:
        return
    r = idx // chans
    c = idx % chans
    acc = 0.0
    base = r * integrate
    for k in range(integrate):
        v = spectra[base + k, c]
        acc += v.real * v.real + v.imag * v.imag
    out[r, c] = acc
