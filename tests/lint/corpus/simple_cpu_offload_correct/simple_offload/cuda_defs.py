import ctypes

CUresult = ctypes.c_int
CUdeviceptr = ctypes.c_uint64
CUstream = ctypes.c_void_p

CU_MEMCPY_SRC_ACCESS_ORDER_STREAM = 0x1
CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL = 0x2
CU_MEMCPY_SRC_ACCESS_ORDER_ANY = 0x3

CU_MEMCPY_FLAG_DEFAULT = 0x0
CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE = 0x1

CU_MEM_LOCATION_TYPE_DEVICE = 0x1
CU_MEM_LOCATION_TYPE_HOST = 0x2


class CUmemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class CUmemcpyAttributes(ctypes.Structure):
    _fields_ = [
        ("srcAccessOrder", ctypes.c_int),
        ("srcLocHint", CUmemLocation),
        ("dstLocHint", CUmemLocation),
        ("flags", ctypes.c_uint),
    ]
