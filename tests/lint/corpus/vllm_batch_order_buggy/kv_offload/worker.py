# SPDX-License-Identifier: Apache-2.0
from collections import deque
from dataclasses import dataclass
import logging

import numpy as np
import torch

from .cuda_batch import (
    CU_MEMCPY_SRC_ACCESS_ORDER_ANY,
    CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
    as_device_ptrs,
    check_cu,
    make_memcpy_attrs,
)
from .spec import STREAM_POOL_SIZE, BlockIDsLoadStoreSpec, TransferResult, TransferSpec
from cuda.bindings import driver

logger = logging.getLogger(__name__)


@dataclass
class Transfer:
    job_id: int
    stream: torch.cuda.Stream
    end_event: torch.Event
    num_bytes: int


class SingleDirectionOffloadingHandler:
    """Handles GPU->CPU or CPU->GPU block copies, one pooled stream per job."""

    def __init__(
        self,
        gpu_tensors: list[torch.Tensor],
        cpu_tensors: list[torch.Tensor],
        gpu_to_cpu: bool,
    ):
        assert len(gpu_tensors) == len(cpu_tensors) > 0
        self.gpu_to_cpu = gpu_to_cpu
        self.src_tensors = gpu_tensors if gpu_to_cpu else cpu_tensors
        self.dst_tensors = cpu_tensors if gpu_to_cpu else gpu_tensors
        self.device_id = gpu_tensors[0].device.index
        self.transfer_type = ("GPU", "CPU") if gpu_to_cpu else ("CPU", "GPU")
        # Offloaded GPU blocks stay referenced by the scheduler until the
        # store job is reported finished, so they are not reallocated meanwhile.
        self.src_access_order = (
            CU_MEMCPY_SRC_ACCESS_ORDER_ANY
            if gpu_to_cpu
            else CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
        )
        self.attrs = [
            make_memcpy_attrs(self.src_access_order, gpu_to_cpu, self.device_id)
        ]
        self._transfers: deque[Transfer] = deque()
        self._stream_pool: list[torch.cuda.Stream] = []

    def _block_ptrs(self, tensor: torch.Tensor, block_ids: np.ndarray) -> np.ndarray:
        return tensor.data_ptr() + block_ids.astype(np.int64) * tensor.stride(0)

    def transfer_async(self, job_id: int, transfer_spec: TransferSpec) -> bool:
        src_spec, dst_spec = transfer_spec
        assert isinstance(src_spec, BlockIDsLoadStoreSpec)
        assert isinstance(dst_spec, BlockIDsLoadStoreSpec)
        srcs, dsts, sizes = [], [], []
        for src_t, dst_t in zip(self.src_tensors, self.dst_tensors):
            srcs.append(self._block_ptrs(src_t, src_spec.block_ids))
            dsts.append(self._block_ptrs(dst_t, dst_spec.block_ids))
            sizes.append(np.full(len(src_spec.block_ids), src_t.stride(0)))
        all_src = np.concatenate(srcs)
        all_dst = np.concatenate(dsts)
        all_sizes = (np.concatenate(sizes) * self.src_tensors[0].element_size()).tolist()

        stream = self._stream_pool.pop() if self._stream_pool else torch.cuda.Stream()
        end_event = torch.Event()
        stream.wait_stream(torch.cuda.current_stream())
        if self._transfers:
            stream.wait_event(self._transfers[-1].end_event)
        count = len(all_sizes)
        # expect: KVG002
        check_cu(driver.cuMemcpyBatchAsync(as_device_ptrs(all_dst), as_device_ptrs(all_src), all_sizes, count, self.attrs, [0], 1, stream.cuda_stream))
        end_event.record(stream)
        self._transfers.append(Transfer(job_id, stream, end_event, sum(all_sizes)))
        return True

    def get_finished(self) -> list[TransferResult]:
        results: list[TransferResult] = []
        while self._transfers and self._transfers[0].end_event.query():
            transfer = self._transfers.popleft()
            results.append(
                TransferResult(
                    transfer.job_id, True, transfer.num_bytes, self.transfer_type
                )
            )
            if len(self._stream_pool) < STREAM_POOL_SIZE:
                self._stream_pool.append(transfer.stream)
        return results


class CpuGpuOffloadingHandlers:
    def __init__(self, gpu_caches: list[torch.Tensor], num_cpu_blocks: int):
        cpu_tensors = [
            torch.zeros(
                (num_cpu_blocks,) + tuple(t.shape[1:]),
                dtype=t.dtype,
                device="cpu",
                pin_memory=True,
            )
            for t in gpu_caches
        ]
        logger.info("Allocated %d CPU KV tensors", len(cpu_tensors))
        self.gpu_to_cpu_handler = SingleDirectionOffloadingHandler(
            gpu_caches, cpu_tensors, gpu_to_cpu=True
        )
        self.cpu_to_gpu_handler = SingleDirectionOffloadingHandler(
            gpu_caches, cpu_tensors, gpu_to_cpu=False
        )
