# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""
Functionality of swapping optimizer tensors to/from (NVMe) storage devices.
"""

import logging
import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List

import torch
from cuda.bindings import driver

from .constants import (OFFLOAD_OPTIMIZER_BUFFER_COUNT_DEFAULT, OFFLOAD_OPTIMIZER_WRITER_THREADS_DEFAULT,
                        OPTIMIZER_SWAP_MEMCPY_FLAGS, OPTIMIZER_SWAP_SRC_ACCESS_ORDER, SWAP_FOLDER_NAME)
from .cuda_utils import (batch_copy_device_to_host, checkCudaErrors, copy_host_to_device, create_event, create_stream,
                         make_d2h_attributes, torch_current_stream)
from .optimizer_utils import OptimizerStateSwapInfo, SwapBufferPool

logger = logging.getLogger(__name__)


class PartitionedOptimizerSwapper(object):

    def __init__(self, nvme_path: str, largest_numel: int, aio_handle=None, rank: int = 0,
                 buffer_count: int = OFFLOAD_OPTIMIZER_BUFFER_COUNT_DEFAULT):
        self.swap_folder = os.path.join(nvme_path, SWAP_FOLDER_NAME, "optimizer", f"rank{rank}")
        os.makedirs(self.swap_folder, exist_ok=True)
        self.aio_handle = aio_handle
        self.device_id = torch.cuda.current_device()
        self.swap_params_info: Dict[int, OptimizerStateSwapInfo] = {}
        self.buffer_pool = SwapBufferPool(buffer_count * 3, largest_numel)
        self.swap_stream = create_stream()
        self.state_ready_event = create_event()
        self.d2h_attr = make_d2h_attributes(self.device_id, OPTIMIZER_SWAP_SRC_ACCESS_ORDER,
                                            OPTIMIZER_SWAP_MEMCPY_FLAGS)
        self.writer = ThreadPoolExecutor(max_workers=OFFLOAD_OPTIMIZER_WRITER_THREADS_DEFAULT,
                                         thread_name_prefix="optimizer_swap_out")
        self.pending_writes: List[Future] = []

    def _get_param_swap_info(self, parameter: torch.Tensor) -> OptimizerStateSwapInfo:
        param_id = id(parameter)
        if param_id not in self.swap_params_info:
            self.swap_params_info[param_id] = OptimizerStateSwapInfo(parameter, parameter.numel(), self.swap_folder)
        return self.swap_params_info[param_id]

    def initialize_parameters(self, parameters: List[torch.Tensor], optimizer_states) -> None:
        for param in parameters:
            info = self._get_param_swap_info(param)
            state = optimizer_states[param]
            info.add_state_tensors([state["exp_avg"], state["exp_avg_sq"]])

    def _write_swap_files(self, swap_info: OptimizerStateSwapInfo, buffers: List[torch.Tensor],
                          done_event: driver.CUevent) -> int:
        if self.aio_handle is not None:
            checkCudaErrors(driver.cuEventSynchronize(done_event))
            for buf, path in zip(buffers, swap_info.swap_paths):
                assert self.aio_handle.async_pwrite(buf, path) == 0
            return self.aio_handle.wait()
        for buf, path in zip(buffers, swap_info.swap_paths):
            with open(path, "wb") as fd:
                # expect: KVG003
                fd.write(buf.numpy().tobytes())
        return len(buffers)

    def swap_out_optimizer_state(self, parameter: torch.Tensor, async_swap: bool = True) -> None:
        swap_info = self._get_param_swap_info(parameter)
        sizes = [t.numel() for t in swap_info.tensors]
        buffers = self.buffer_pool.get(len(swap_info.tensors), sizes)

        checkCudaErrors(driver.cuEventRecord(self.state_ready_event, torch_current_stream()))
        checkCudaErrors(driver.cuStreamWaitEvent(self.swap_stream, self.state_ready_event, 0))
        batch_copy_device_to_host([b.data_ptr() for b in buffers], [t.data_ptr() for t in swap_info.tensors],
                                  [t.numel() * t.element_size() for t in swap_info.tensors], self.d2h_attr,
                                  self.swap_stream)
        done_event = create_event()
        checkCudaErrors(driver.cuEventRecord(done_event, self.swap_stream))

        future = self.writer.submit(self._write_swap_files, swap_info, buffers, done_event)
        future.add_done_callback(lambda _f: self.buffer_pool.release(buffers))
        self.pending_writes.append(future)
        if not async_swap:
            self.synchronize_writes()

    def synchronize_writes(self) -> None:
        for future in self.pending_writes:
            future.result()
        self.pending_writes = []

    def swap_in_optimizer_state(self, parameter: torch.Tensor) -> List[torch.Tensor]:
        swap_info = self._get_param_swap_info(parameter)
        self.synchronize_writes()
        sizes = [t.numel() for t in swap_info.tensors]
        buffers = self.buffer_pool.get(len(swap_info.tensors), sizes)
        if self.aio_handle is not None:
            for buf, path in zip(buffers, swap_info.swap_paths):
                assert self.aio_handle.async_pread(buf, path) == 0
            self.aio_handle.wait()
        else:
            for buf, path in zip(buffers, swap_info.swap_paths):
                with open(path, "rb") as fd:
                    fd.readinto(buf.numpy())

        device = swap_info.device()
        restored = [torch.empty(size, dtype=torch.float32, device=device) for size in sizes]
        copy_host_to_device(restored, buffers, self.swap_stream)
        ready = create_event()
        checkCudaErrors(driver.cuEventRecord(ready, self.swap_stream))
        checkCudaErrors(driver.cuStreamWaitEvent(torch_current_stream(), ready, 0))
        checkCudaErrors(driver.cuStreamSynchronize(self.swap_stream))
        self.buffer_pool.release(buffers)
        return restored
