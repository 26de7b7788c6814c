"""Batched KV block copies through libcudart loaded with ctypes: per-block addresses built
from ``data_ptr()`` arithmetic are packed into ``(ctypes.c_uint64 * n)(*ptrs)`` arrays and
handed to ``cudaMemcpyBatchAsync`` on torch side streams passed as
``ctypes.c_void_p(stream.cuda_stream)``. Bugs: the store asks for ANY source access order
although its source is GPU memory, and it is not ordered behind the compute stream. The
load (ANY from pinned memory, ordered with ``wait_stream``) is fine."""

import ctypes

import torch

_cudart = ctypes.CDLL("libcudart.so.12")


class CudaMemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", ctypes.c_int * 2),
        ("dstLocHint", ctypes.c_int * 2),
        ("flags", ctypes.c_uint),
    ]


def _pointer_array(tensor, blocks, block_bytes):
    base = tensor.data_ptr()
    pointers = [base + block * block_bytes for block in blocks]
    return (ctypes.c_uint64 * len(pointers))(*pointers)


class BatchBlockMover:
    def __init__(self, num_gpu_blocks, num_cpu_blocks, block_bytes):
        self.block_bytes = block_bytes
        self.gpu_cache = torch.zeros((num_gpu_blocks, block_bytes), dtype=torch.uint8, device="cuda")
        self.cpu_cache = torch.zeros((num_cpu_blocks, block_bytes), dtype=torch.uint8, pin_memory=True)
        self.store_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()

    def store(self, gpu_blocks, cpu_blocks):
        count = len(gpu_blocks)
        srcs = _pointer_array(self.gpu_cache, gpu_blocks, self.block_bytes)
        dsts = _pointer_array(self.cpu_cache, cpu_blocks, self.block_bytes)
        sizes = (ctypes.c_size_t * count)(*([self.block_bytes] * count))
        attrs = CudaMemcpyAttributes()
        attrs.srcAccessOrder = 3  # cudaMemcpySrcAccessOrderAny
        attrs_index = ctypes.c_size_t(0)
        fail_index = ctypes.c_size_t(0)
        # expect: KVG001, KVG002
        err = _cudart.cudaMemcpyBatchAsync(
            dsts,
            srcs,
            sizes,
            ctypes.c_size_t(count),
            ctypes.byref(attrs),
            ctypes.byref(attrs_index),
            ctypes.c_size_t(1),
            ctypes.byref(fail_index),
            ctypes.c_void_p(self.store_stream.cuda_stream),
        )
        if err != 0:
            raise RuntimeError(f"cudaMemcpyBatchAsync failed at {fail_index.value}: {err}")

    def load(self, cpu_blocks, gpu_blocks):
        self.load_stream.wait_stream(torch.cuda.current_stream())
        count = len(cpu_blocks)
        srcs = _pointer_array(self.cpu_cache, cpu_blocks, self.block_bytes)
        dsts = _pointer_array(self.gpu_cache, gpu_blocks, self.block_bytes)
        sizes = (ctypes.c_size_t * count)(*([self.block_bytes] * count))
        attrs = CudaMemcpyAttributes()
        attrs.srcAccessOrder = 3  # ANY is fine: the source is pinned host memory
        attrs_index = ctypes.c_size_t(0)
        fail_index = ctypes.c_size_t(0)
        err = _cudart.cudaMemcpyBatchAsync(
            dsts,
            srcs,
            sizes,
            ctypes.c_size_t(count),
            ctypes.byref(attrs),
            ctypes.byref(attrs_index),
            ctypes.c_size_t(1),
            ctypes.byref(fail_index),
            ctypes.c_void_p(self.load_stream.cuda_stream),
        )
        if err != 0:
            raise RuntimeError(f"cudaMemcpyBatchAsync failed at {fail_index.value}: {err}")
        torch.cuda.current_stream().wait_stream(self.load_stream)
