import cupy as cp


def power_spectrum(frames: cp.ndarray, window: cp.ndarray,
                   stream: cp.cuda.Stream):
    """|rfft(frames * window)|^2 on ``stream``; returns the result and its event."""
    with stream:
        spec = cp.fft.rfft(frames * window, axis=-1)
        power = spec.real ** 2 + spec.imag ** 2
        ready = stream.record()
    return power, ready
