"""Scoring kernels. They run on whatever cupy stream is current at the call."""
import cupy

_scale_bias = cupy.ElementwiseKernel(
    "T x, T scale, T bias", "T y",
    "y = x * scale + bias",
    "asr_scale_bias",
)


def acoustic_scores(feats: cupy.ndarray, proj: cupy.ndarray, out: cupy.ndarray,
                    temperature: float) -> None:
    """out[frames, vocab] = feats @ proj / temperature"""
    cupy.matmul(feats, proj, out=out)
    _scale_bias(out, out.dtype.type(1.0 / temperature), out.dtype.type(0.0), out)


def log_softmax_(x: cupy.ndarray) -> None:
    """Row-wise log-softmax, in place."""
    x -= x.max(axis=-1, keepdims=True)
    x -= cupy.log(cupy.exp(x).sum(axis=-1, keepdims=True))
