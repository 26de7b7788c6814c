# SPDX-License-Identifier: Apache-2.0
# Third Party
import cupy

# First Party
from kvcodec.constants import QUANT_MAX, SCALE_EPS

_quantize_int8 = cupy.ElementwiseKernel(
    "T x, float32 scale",
    "int8 q",
    "q = (signed char)max(-127.f, min(127.f, rintf((float)x / scale)));",
    "lmc_quantize_int8",
)


def quantize_rows(x: cupy.ndarray, q_out: cupy.ndarray, scale_out: cupy.ndarray) -> None:
    """Row-wise absmax int8 quantization on the current stream."""
    amax = cupy.abs(x).max(axis=-1, keepdims=True).astype(cupy.float32)
    cupy.divide(amax, QUANT_MAX, out=scale_out)
    cupy.maximum(scale_out, SCALE_EPS, out=scale_out)
    _quantize_int8(x, scale_out, q_out)
