# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

import os
import queue
import threading
from enum import Enum
from typing import Dict, List, Optional, Tuple

import torch
from cuda.bindings import driver

from deepspeed.utils import logger

from .batch_copy import batch_device_to_host
from .constants import PARAM_SWAP_FILE_SUFFIX, PREFETCH_QUEUE_DEPTH, SWAP_BUFFER_COUNT, SWAP_BUFFER_NUMEL
from .driver_utils import check_cuda, create_event, create_stream, order_after, torch_stream_handle


class PartitionedParamStatus(Enum):
    AVAILABLE = 1
    NOT_AVAILABLE = 2
    INFLIGHT = 3


class AsyncPartitionedParameterSwapper:

    def __init__(self, swap_folder: str, aio_read_handle, aio_write_handle, dtype: torch.dtype = torch.float16):
        self.swap_folder = swap_folder
        self.aio_read_handle = aio_read_handle
        self.aio_write_handle = aio_write_handle
        self.dtype = dtype
        self.device_ordinal = torch.cuda.current_device()
        self.swap_stream = create_stream()
        self._compute_event = create_event()
        self._swap_out_done = create_event()
        self._swap_in_done = create_event()
        self._out_buffers = [torch.empty(SWAP_BUFFER_NUMEL, dtype=dtype).pin_memory() for _ in range(SWAP_BUFFER_COUNT)]
        self._in_buffers = [torch.empty(SWAP_BUFFER_NUMEL, dtype=dtype).pin_memory() for _ in range(SWAP_BUFFER_COUNT)]
        self._swap_in_lock = threading.Lock()
        self._free_device: Dict[int, List[Tuple[torch.Tensor, driver.CUevent]]] = {}
        self._device_lock = threading.Lock()
        self.status: Dict[int, PartitionedParamStatus] = {}
        self._prefetch_queue: "queue.Queue" = queue.Queue(maxsize=PREFETCH_QUEUE_DEPTH)
        self._prefetch_thread = threading.Thread(target=self._prefetch_worker, name="zero-param-prefetch", daemon=True)
        self._prefetch_thread.start()
        os.makedirs(swap_folder, exist_ok=True)

    def _swap_path(self, param) -> str:
        return os.path.join(self.swap_folder, f"{param.ds_id}{PARAM_SWAP_FILE_SUFFIX}")

    def _acquire_device_buffer(self, numel: int) -> Tuple[torch.Tensor, Optional[driver.CUevent]]:
        with self._device_lock:
            bucket = self._free_device.get(numel)
            if bucket:
                return bucket.pop()
        return torch.empty(numel, dtype=self.dtype, device=f"cuda:{self.device_ordinal}"), None

    def _release_device_buffer(self, tensor: torch.Tensor) -> None:
        released = create_event()
        check_cuda(driver.cuEventRecord(released, torch_stream_handle(torch.cuda.current_stream())))
        with self._device_lock:
            self._free_device.setdefault(tensor.numel(), []).append((tensor, released))

    def swap_out_and_release(self, params: List) -> None:
        compute = torch_stream_handle(torch.cuda.current_stream())
        order_after(self.swap_stream, compute, self._compute_event)
        host = [self._out_buffers[i].narrow(0, 0, p.ds_tensor.numel()) for i, p in enumerate(params)]
        batch_device_to_host(host, [p.ds_tensor for p in params], self.device_ordinal, self.swap_stream)
        check_cuda(driver.cuEventRecord(self._swap_out_done, self.swap_stream))
        check_cuda(driver.cuEventSynchronize(self._swap_out_done))
        for p, buf in zip(params, host):
            self.aio_write_handle.async_pwrite(buf, self._swap_path(p))
        self.aio_write_handle.wait()
        for p in params:
            self.release_partition(p)

    def release_partition(self, param) -> None:
        self._release_device_buffer(param.ds_tensor.data)
        param.ds_tensor.data = torch.empty(0, dtype=self.dtype, device=param.ds_tensor.device)
        self.status[param.ds_id] = PartitionedParamStatus.NOT_AVAILABLE

    def _read_to_host(self, params: List) -> List[torch.Tensor]:
        host = [self._in_buffers[i].narrow(0, 0, p.ds_numel) for i, p in enumerate(params)]
        for p, buf in zip(params, host):
            self.aio_read_handle.async_pread(buf, self._swap_path(p))
        self.aio_read_handle.wait()
        return host

    def _copy_in(self, params: List, host: List[torch.Tensor]) -> None:
        for p, buf in zip(params, host):
            dev, released = self._acquire_device_buffer(p.ds_numel)
            nbytes = p.ds_numel * buf.element_size()
            if released is not None:
                check_cuda(driver.cuStreamWaitEvent(self.swap_stream, released, 0))
                check_cuda(driver.cuEventDestroy(released))
            check_cuda(driver.cuMemcpyHtoDAsync(dev.data_ptr(), buf.data_ptr(), nbytes, self.swap_stream))
            p.ds_tensor.data = dev
        check_cuda(driver.cuEventRecord(self._swap_in_done, self.swap_stream))
        check_cuda(driver.cuEventSynchronize(self._swap_in_done))

    def swap_in(self, params: List) -> None:
        with self._swap_in_lock:
            host = self._read_to_host(params)
            compute = torch_stream_handle(torch.cuda.current_stream())
            order_after(self.swap_stream, compute, self._compute_event)
            self._copy_in(params, host)
        for p in params:
            self.status[p.ds_id] = PartitionedParamStatus.AVAILABLE

    def prefetch(self, params: List) -> None:
        for p in params:
            self.status[p.ds_id] = PartitionedParamStatus.INFLIGHT
        self._prefetch_queue.put(params)

    def _prefetch_worker(self) -> None:
        while True:
            params = self._prefetch_queue.get()
            if params is None:
                return
            try:
                with self._swap_in_lock:
                    host = self._read_to_host(params)
                    self._copy_in(params, host)
                for p in params:
                    self.status[p.ds_id] = PartitionedParamStatus.AVAILABLE
            except Exception:
                logger.exception("parameter prefetch failed")
            finally:
                self._prefetch_queue.task_done()

    def synchronize_reads(self) -> None:
        self._prefetch_queue.join()
