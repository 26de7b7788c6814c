# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import Sequence

import torch
from cuda.bindings import driver

from .constants import DEFAULT_FLAGS, GRAD_D2H_SRC_ACCESS_ORDER, OVERLAP_FLAGS, PARAM_H2D_SRC_ACCESS_ORDER
from .streams import check


def _location(on_device: bool, device_id: int) -> driver.CUmemLocation:
    loc = driver.CUmemLocation()
    loc.type = (driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
                if on_device else driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST)
    loc.id = device_id if on_device else 0
    return loc


def _attributes(order, src_on_device: bool, device_id: int, flags) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = order
    attrs.srcLocHint = _location(src_on_device, device_id)
    attrs.dstLocHint = _location(not src_on_device, device_id)
    attrs.flags = flags
    return attrs


def _ptrs(tensors: Sequence[torch.Tensor]):
    return [driver.CUdeviceptr(t.data_ptr()) for t in tensors]


def copy_grads_to_host(gpu_grads: Sequence[torch.Tensor], cpu_grads: Sequence[torch.Tensor], stream) -> None:
    device_id = gpu_grads[0].device.index
    attrs = _attributes(GRAD_D2H_SRC_ACCESS_ORDER, True, device_id, OVERLAP_FLAGS)
    sizes = [g.numel() * g.element_size() for g in gpu_grads]
    result = driver.cuMemcpyBatchAsync(
        _ptrs(cpu_grads), _ptrs(gpu_grads), sizes, len(sizes), [attrs], [0], 1, stream
    )
    check(result, "cuMemcpyBatchAsync(grads D2H)")


def copy_params_to_device(cpu_params: Sequence[torch.Tensor], gpu_params: Sequence[torch.Tensor], stream) -> None:
    device_id = gpu_params[0].device.index
    attrs = _attributes(PARAM_H2D_SRC_ACCESS_ORDER, False, device_id, DEFAULT_FLAGS)
    sizes = [p.numel() * p.element_size() for p in cpu_params]
    result = driver.cuMemcpyBatchAsync(
        _ptrs(gpu_params), _ptrs(cpu_params), sizes, len(sizes), [attrs], [0], 1, stream
    )
    check(result, "cuMemcpyBatchAsync(params H2D)")
