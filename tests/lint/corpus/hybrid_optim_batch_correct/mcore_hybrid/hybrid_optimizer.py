# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from typing import Callable, Iterable, List, Optional

import torch
from cuda.bindings import driver

from .constants import (BATCH_COPY_MIN_DRIVER_VERSION, BATCH_COPY_MIN_TENSORS, CUDA_MEMCPY_DEVICE_TO_HOST,
                        CUDA_MEMCPY_HOST_TO_DEVICE)
from .cuda_utils import batch_copy, check, create_event, create_stream, driver_version, make_copy_attributes, order_after
from .cudart_ctypes import memcpy_async

logger = logging.getLogger(__name__)

_ORDER = driver.CUmemcpySrcAccessOrder


class HybridDeviceOptimizer:
    """Keeps fp32 main params on the GPU but runs the optimizer step on host copies of them."""

    def __init__(self, params: Iterable[torch.nn.Parameter], cpu_optimizer_cls: Callable, **optimizer_kwargs):
        self.gpu_params: List[torch.nn.Parameter] = [p for p in params if p.requires_grad]
        self.cpu_params: List[torch.Tensor] = []
        for p in self.gpu_params:
            if p.dtype != torch.float32:
                raise TypeError(f"HybridDeviceOptimizer expects fp32 main params, got {p.dtype}")
            host = torch.empty(p.shape, dtype=torch.float32, device="cpu", pin_memory=True)
            host.copy_(p.detach())
            host.grad = torch.empty_like(host, pin_memory=True)
            self.cpu_params.append(host)
        self.cpu_optimizer = cpu_optimizer_cls(self.cpu_params, **optimizer_kwargs)

        device_id = torch.cuda.current_device()
        self._stream = create_stream()
        self._upstream_done = create_event()
        self._grads_copied = create_event()
        self._params_loaded = create_event()
        self._use_batch = (driver_version() >= BATCH_COPY_MIN_DRIVER_VERSION
                           and len(self.gpu_params) >= BATCH_COPY_MIN_TENSORS)
        self._grad_copy_attrs = make_copy_attributes(_ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, device_id,
                                                     src_on_device=True)
        self._param_copy_attrs = make_copy_attributes(_ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, device_id,
                                                      src_on_device=False)
        logger.info("HybridDeviceOptimizer: %d params, batched copies=%s", len(self.gpu_params), self._use_batch)

    @property
    def param_groups(self):
        return self.cpu_optimizer.param_groups

    @staticmethod
    def _compute_stream() -> driver.CUstream:
        return driver.CUstream(torch.cuda.current_stream().cuda_stream)

    def _copy(self, dsts, srcs, sizes, attrs, kind: int) -> None:
        if self._use_batch:
            batch_copy(dsts, srcs, sizes, attrs, self._stream)
            return
        for dst, src, nbytes in zip(dsts, srcs, sizes):
            memcpy_async(dst, src, nbytes, kind, int(self._stream))

    def _offload_grads(self) -> None:
        order_after(self._stream, self._compute_stream(), self._upstream_done)
        dsts = [h.grad.data_ptr() for h in self.cpu_params]
        srcs = [p.grad.data_ptr() for p in self.gpu_params]
        sizes = [p.grad.numel() * p.grad.element_size() for p in self.gpu_params]
        self._copy(dsts, srcs, sizes, self._grad_copy_attrs, CUDA_MEMCPY_DEVICE_TO_HOST)
        check(driver.cuEventRecord(self._grads_copied, self._stream))

    def _load_params(self) -> None:
        order_after(self._stream, self._compute_stream(), self._upstream_done)
        dsts = [p.data_ptr() for p in self.gpu_params]
        srcs = [h.data_ptr() for h in self.cpu_params]
        sizes = [h.numel() * h.element_size() for h in self.cpu_params]
        self._copy(dsts, srcs, sizes, self._param_copy_attrs, CUDA_MEMCPY_HOST_TO_DEVICE)
        check(driver.cuEventRecord(self._params_loaded, self._stream))
        check(driver.cuStreamWaitEvent(self._compute_stream(), self._params_loaded, 0))

    @torch.no_grad()
    def step(self, closure: Optional[Callable] = None):
        self._offload_grads()
        check(driver.cuEventSynchronize(self._grads_copied))
        loss = self.cpu_optimizer.step(closure)
        self._load_params()
        return loss

    def zero_grad(self, set_to_none: bool = False) -> None:
        for p in self.gpu_params:
            if p.grad is not None:
                p.grad.zero_()
