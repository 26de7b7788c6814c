import torch
from cuda.bindings import driver as drv

from kv_cache_manager_v2._common import _check


def create_stream() -> drv.CUstream:
    return _check(drv.cuStreamCreate(drv.CUstream_flags.CU_STREAM_NON_BLOCKING))


def create_event() -> drv.CUevent:
    return _check(drv.cuEventCreate(drv.CUevent_flags.CU_EVENT_DISABLE_TIMING))


def current_torch_stream() -> drv.CUstream:
    return drv.CUstream(torch.cuda.current_stream().cuda_stream)


def driver_version() -> int:
    return _check(drv.cuDriverGetVersion())
