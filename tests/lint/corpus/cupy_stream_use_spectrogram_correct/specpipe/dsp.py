"""Short-time power spectrum on the GPU: framing by strides, a Hann window applied by an
elementwise kernel, ``cupy.fft.rfft`` and a log-power kernel. Everything runs on whatever
stream is current on the calling thread."""

import cupy
from cupy.lib.stride_tricks import as_strided

apply_window = cupy.ElementwiseKernel(
    "T x, raw T w, int32 n_fft",
    "T y",
    "y = x * w[i % n_fft]",
    "apply_window",
)

log_power = cupy.ElementwiseKernel(
    "complex64 z, float32 floor_db",
    "float32 db",
    "db = max(10.0f * log10f(real(z) * real(z) + imag(z) * imag(z) + 1e-12f), floor_db)",
    "log_power",
)


def hann(n_fft: int) -> cupy.ndarray:
    n = cupy.arange(n_fft, dtype=cupy.float32)
    return 0.5 - 0.5 * cupy.cos(2.0 * cupy.pi * n / n_fft)


def power_spectrogram(samples: cupy.ndarray, window: cupy.ndarray, hop: int,
                      floor_db: float = -120.0) -> cupy.ndarray:
    n_fft = window.shape[0]
    n_frames = 1 + (samples.shape[0] - n_fft) // hop
    frames = as_strided(samples, shape=(n_frames, n_fft),
                        strides=(hop * samples.itemsize, samples.itemsize))
    windowed = apply_window(frames, window, cupy.int32(n_fft))
    spec = cupy.fft.rfft(windowed, axis=1)
    return log_power(spec, cupy.float32(floor_db))
