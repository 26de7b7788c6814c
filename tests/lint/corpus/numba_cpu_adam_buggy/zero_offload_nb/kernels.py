# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from numba import cuda

THREADS_PER_BLOCK = 256


@cuda.jit
def _accumulate(dst, src):
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] += src[i]


@cuda.jit
def _scale(buf, factor):
    i = cuda.grid(1)
    if i < buf.size:
        buf[i] *= factor


@cuda.jit
def _fill_zero(buf):
    i = cuda.grid(1)
    if i < buf.size:
        buf[i] = 0


def _blocks(n: int) -> int:
    return (n + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK


def accumulate_grad(dst, src, stream) -> None:
    _accumulate[_blocks(dst.size), THREADS_PER_BLOCK, stream](dst, src)


def unscale_grad(buf, factor: float, stream) -> None:
    _scale[_blocks(buf.size), THREADS_PER_BLOCK, stream](buf, factor)


def clear_grad(buf, stream) -> None:
    _fill_zero[_blocks(buf.size), THREADS_PER_BLOCK, stream](buf)
