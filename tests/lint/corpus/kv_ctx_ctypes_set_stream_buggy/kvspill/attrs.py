"""CUmemcpyAttributes for the CUDA 12.8 batch-copy ABI, built as ctypes structures."""

import ctypes

SRC_ORDER_STREAM = 1
SRC_ORDER_DURING_API_CALL = 2
SRC_ORDER_ANY = 3
FLAG_PREFER_OVERLAP = 1


class CUmemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class CUmemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", CUmemLocation),
        ("dstLocHint", CUmemLocation),
        ("flags", ctypes.c_uint),
    ]


def make_attrs(order=SRC_ORDER_ANY):
    attrs = CUmemcpyAttributes()
    attrs.srcAccessOrder = order
    attrs.flags = FLAG_PREFER_OVERLAP
    return attrs
