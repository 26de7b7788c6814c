from __future__ import annotations

import logging
import queue
import threading
from dataclasses import dataclass
from typing import Optional

import torch
from cuda.bindings import driver

from .cuda_utils import build_copy_attributes, check
from .metadata import CPUOffloadConnectorMetadata, ReqTransferSpec, TransferDirection

logger = logging.getLogger(__name__)


@dataclass
class StoreJob:
    step: int
    specs: list[ReqTransferSpec]
    dst_ptrs: list[driver.CUdeviceptr]
    src_ptrs: list[driver.CUdeviceptr]
    sizes: list[int]


class CPUOffloadWorker:
    """Gathers the blocks to evict into a GPU staging area on the compute
    stream and drains them to pinned CPU blocks from a background thread."""

    def __init__(self, device: torch.device, num_cpu_blocks: int,
                 max_blocks_per_step: int) -> None:
        self.device = device
        self.device_id = device.index or 0
        self.num_cpu_blocks = num_cpu_blocks
        self.max_blocks_per_step = max_blocks_per_step
        self.block_nbytes = 0

        self.kv_caches: dict[str, torch.Tensor] = {}
        self.cpu_caches: dict[str, torch.Tensor] = {}
        self.staging: dict[str, torch.Tensor] = {}

        self._metadata: Optional[CPUOffloadConnectorMetadata] = None
        self._step = 0
        self._d2h_attrs = build_copy_attributes(TransferDirection.GPU_TO_CPU,
                                                self.device_id)
        self._stream = check(driver.cuStreamCreate(
            driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value))
        self._jobs: queue.Queue[Optional[StoreJob]] = queue.Queue()
        self._finished: queue.Queue[str] = queue.Queue()
        self._thread = threading.Thread(target=self._copy_loop,
                                        name="kv-cpu-offload", daemon=True)
        self._thread.start()

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        # The fork's attention backend allocates caches block-major:
        # [num_blocks, 2, block_size, num_kv_heads, head_size].
        for name, gpu_cache in kv_caches.items():
            block_shape = tuple(gpu_cache.shape[1:])
            self.kv_caches[name] = gpu_cache
            self.cpu_caches[name] = torch.empty(
                (self.num_cpu_blocks, *block_shape), dtype=gpu_cache.dtype,
                device="cpu", pin_memory=True)
            self.staging[name] = torch.empty(
                (self.max_blocks_per_step, *block_shape), dtype=gpu_cache.dtype,
                device=self.device)
            self.block_nbytes = gpu_cache[0].numel() * gpu_cache.element_size()

    def bind_connector_metadata(self, metadata: CPUOffloadConnectorMetadata) -> None:
        # At most one step in flight: the staging area is reused every step.
        self._jobs.join()
        self._metadata = metadata

    def save_kv_layer(self, layer_name: str, kv_layer: torch.Tensor,
                      attn_metadata: object) -> None:
        md = self._metadata
        if md is None or not md.stores:
            return
        block_ids = [b for spec in md.stores for b in spec.gpu_block_ids]
        index = torch.as_tensor(block_ids, dtype=torch.long, device=self.device)
        staging = self.staging[layer_name][:len(block_ids)]
        torch.index_select(kv_layer, 0, index, out=staging)

    def wait_for_save(self) -> None:
        md = self._metadata
        if md is None or not md.stores:
            return
        dst_ptrs, src_ptrs, sizes = [], [], []
        slot = 0
        for spec in md.stores:
            for cpu_block in spec.cpu_block_ids:
                for name, staging in self.staging.items():
                    src_ptrs.append(driver.CUdeviceptr(staging[slot].data_ptr()))
                    dst_ptrs.append(driver.CUdeviceptr(
                        self.cpu_caches[name][cpu_block].data_ptr()))
                    sizes.append(self.block_nbytes)
                slot += 1
        self._jobs.put(StoreJob(self._step, list(md.stores), dst_ptrs, src_ptrs, sizes))
        self._step += 1

    def get_finished(self) -> set[str]:
        done: set[str] = set()
        while True:
            try:
                done.add(self._finished.get_nowait())
            except queue.Empty:
                return done

    def shutdown(self) -> None:
        self._jobs.put(None)
        self._thread.join()
        check(driver.cuStreamDestroy(self._stream))

    def _copy_loop(self) -> None:
        torch.cuda.set_device(self.device)
        while True:
            job = self._jobs.get()
            try:
                if job is None:
                    return
                self._run_store(job)
            except Exception:
                logger.exception("CPU offload of step %d failed", job.step)
            finally:
                self._jobs.task_done()

    def _run_store(self, job: StoreJob) -> None:
        # expect: KVG001, KVG002
        check(driver.cuMemcpyBatchAsync(job.dst_ptrs, job.src_ptrs, job.sizes,
                                        len(job.sizes), [self._d2h_attrs], [0], 1,
                                        self._stream))
        check(driver.cuStreamSynchronize(self._stream))
        for spec in job.specs:
            self._finished.put(spec.req_id)
