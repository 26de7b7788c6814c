"""Packing gradients into one flat transfer buffer and scattering them back."""
import cupy as cp
import numpy as np


def extract_grads(model):
    return [param for _, param in sorted(model.namedparams()) if param.grad is not None]


def bucketize(params, bucket_bytes, itemsize=4):
    buckets, current, size = [], [], 0
    for param in params:
        nbytes = param.grad.size * itemsize
        if current and size + nbytes > bucket_bytes:
            buckets.append(current)
            current, size = [], 0
        current.append(param)
        size += nbytes
    if current:
        buckets.append(current)
    return buckets


def pack_grads(params, buffer, stream, dtype=np.float32):
    offset = 0
    with stream:
        for param in params:
            g = param.grad
            view = buffer.array(g.size, offset, dtype)
            view[...] = g.ravel().astype(dtype, copy=False)
            offset += g.size * np.dtype(dtype).itemsize


def unpack_grads(params, host, stream, dtype=np.float32):
    offset = 0
    for param in params:
        g = param.grad
        nbytes = g.size * np.dtype(dtype).itemsize
        if g.dtype == dtype:
            g.data.copy_from_host_async(host.ptr(offset), nbytes, stream)
        else:
            with stream:
                tmp = cp.empty(g.shape, dtype=dtype)
                tmp.data.copy_from_host_async(host.ptr(offset), nbytes, stream)
                g[...] = tmp.astype(g.dtype)
        offset += nbytes
