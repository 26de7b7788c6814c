# SPDX-License-Identifier: Apache-2.0
import ctypes
import logging
from concurrent.futures import Future

import torch

from . import cudart
from .engine import CpuOffloadEngine, LoadJob, StoreJob

logger = logging.getLogger(__name__)


class OffloadingConnectorWorker:
    """Worker side of the CPU offloading connector.

    Loads land in a fixed GPU staging region first; the forward pass then
    scatters the staged blocks into the paged KV cache on the compute stream.
    """

    def __init__(self, kv_cache: torch.Tensor, host_cache: torch.Tensor, num_staging_blocks: int):
        self.lib = cudart.load_cudart()
        self.kv_cache = kv_cache
        self.host_cache = host_cache
        self.block_bytes = kv_cache[0].numel() * kv_cache.element_size()
        self.staging = torch.empty(
            (num_staging_blocks,) + tuple(kv_cache.shape[1:]),
            dtype=kv_cache.dtype,
            device=kv_cache.device,
        )
        self.engine = CpuOffloadEngine(self.lib, kv_cache.device.index)
        self._loads: dict[str, tuple[Future, LoadJob]] = {}
        self._stores: dict[str, tuple[Future, StoreJob]] = {}

    def _mark_compute(self) -> cudart.cudaEvent_t:
        event = cudart.new_event(self.lib)
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        cudart.check(self.lib.cudaEventRecord(event, stream))
        return event

    def _ptrs(self, t: torch.Tensor, ids: list[int]) -> list[int]:
        return [t.data_ptr() + i * t.stride(0) * t.element_size() for i in ids]

    def start_load_kv(self, req_id: str, cpu_block_ids: list[int]) -> None:
        assert not self._loads, "staging region holds one request at a time"
        assert len(cpu_block_ids) <= self.staging.shape[0]
        job = LoadJob(
            req_id=req_id,
            host_ptrs=self._ptrs(self.host_cache, cpu_block_ids),
            staging_ptrs=self._ptrs(self.staging, list(range(len(cpu_block_ids)))),
            block_bytes=self.block_bytes,
            compute_event=self._mark_compute(),
            done_event=cudart.new_event(self.lib),
        )
        self._loads[req_id] = (self.engine.submit_load(job), job)

    def wait_for_layer_load(self, req_id: str, gpu_block_ids: list[int]) -> None:
        future, job = self._loads.pop(req_id)
        future.result()
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        cudart.check(self.lib.cudaStreamWaitEvent(stream, job.done_event, 0))
        index = torch.tensor(gpu_block_ids, device=self.kv_cache.device)
        self.kv_cache.index_copy_(0, index, self.staging[: len(gpu_block_ids)])

    def save_kv(self, req_id: str, gpu_block_ids: list[int], cpu_block_ids: list[int]) -> None:
        job = StoreJob(
            req_id=req_id,
            gpu_ptrs=self._ptrs(self.kv_cache, gpu_block_ids),
            host_ptrs=self._ptrs(self.host_cache, cpu_block_ids),
            block_bytes=self.block_bytes,
            compute_event=self._mark_compute(),
            done_event=cudart.new_event(self.lib),
        )
        self._stores[req_id] = (self.engine.submit_store(job), job)

    def get_finished(self) -> set[str]:
        done = set()
        for req_id, (future, job) in list(self._stores.items()):
            if future.done() and self.lib.cudaEventQuery(job.done_event) == cudart.cudaSuccess:
                done.add(req_id)
                del self._stores[req_id]
        return done
