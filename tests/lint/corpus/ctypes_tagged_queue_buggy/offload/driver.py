"""Batch copies through the driver entry point, loaded with ctypes."""

import ctypes

ACCESS_ORDER_ANY = 3


class MemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", ctypes.c_int * 2),
        ("dstLocHint", ctypes.c_int * 2),
        ("flags", ctypes.c_uint),
    ]


_libcuda = ctypes.CDLL("libcuda.so.1")
_batch = _libcuda.cuMemcpyBatchAsync


def block_pointers(tensor, blocks, block_bytes):
    base = tensor.data_ptr()
    pointers = [base + block * block_bytes for block in blocks]
    return (ctypes.c_void_p * len(pointers))(*pointers), len(pointers)


def batch_copy(dst, dst_blocks, src, src_blocks, block_bytes, stream):
    dst_pointers, count = block_pointers(dst, dst_blocks, block_bytes)
    src_pointers, _ = block_pointers(src, src_blocks, block_bytes)
    sizes = (ctypes.c_size_t * count)(*([block_bytes] * count))
    attributes = MemcpyAttributes()
    attributes.srcAccessOrder = ACCESS_ORDER_ANY
    attribute_index = ctypes.c_size_t(0)
    fail_index = ctypes.c_size_t(0)
    # expect: KVG001, KVG002
    return _batch(
        dst_pointers,
        src_pointers,
        sizes,
        ctypes.c_size_t(count),
        ctypes.byref(attributes),
        ctypes.byref(attribute_index),
        ctypes.c_size_t(1),
        ctypes.byref(fail_index),
        ctypes.c_void_p(stream.cuda_stream),
    )
