from concurrent.futures import Future, ThreadPoolExecutor
from typing import Optional

import torch

from cpu_kv_offload.dma import BlockCopyPlan, copy_blocks
from cpu_kv_offload.metadata import CPUOffloadMetadata


class CPUOffloadWorker:
    def __init__(self, num_cpu_blocks: int):
        self.num_cpu_blocks = num_cpu_blocks
        self._meta: Optional[CPUOffloadMetadata] = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kv-offload")
        # (future, is_store, req_ids); FIFO because the executor has one thread
        self._inflight: list[tuple[Future, bool, list[str]]] = []
        self._load_compute_done = torch.cuda.Event()
        # reused every step: wait_for_save runs once per step and the executor is FIFO
        self._store_compute_done = torch.cuda.Event()

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        self.device = next(iter(kv_caches.values())).device
        self.gpu_caches = {n: t.view(t.shape[0], -1) for n, t in kv_caches.items()}
        self.cpu_caches = {
            n: torch.zeros((self.num_cpu_blocks, t.shape[1]), dtype=t.dtype, pin_memory=True)
            for n, t in self.gpu_caches.items()
        }
        low, _ = torch.cuda.Stream.priority_range()
        self.load_stream = torch.cuda.Stream(self.device, priority=low)
        self.store_stream = torch.cuda.Stream(self.device, priority=low)
        self._store_plan = BlockCopyPlan.for_store(self.gpu_caches, self.cpu_caches, self.store_stream)
        self._load_plan = BlockCopyPlan.for_load(self.cpu_caches, self.gpu_caches, self.load_stream)

    def bind_connector_metadata(self, meta: CPUOffloadMetadata) -> None:
        self._meta = meta

    def clear_connector_metadata(self) -> None:
        self._meta = None

    def _run_copy(self, plan: BlockCopyPlan, stream: torch.cuda.Stream, src: list[int],
                  dst: list[int], wait_for: Optional[torch.cuda.Event]) -> torch.cuda.Event:
        torch.cuda.set_device(self.device)
        if wait_for is not None:
            stream.wait_event(wait_for)
        copy_blocks(plan, src, dst)
        done = torch.cuda.Event()
        done.record(stream)
        return done

    def start_load_kv(self) -> None:
        meta = self._meta
        if meta is None or not meta.load_cpu_blocks:
            return
        # the load overwrites GPU blocks that kernels of the previous step may still read
        self._load_compute_done.record(torch.cuda.current_stream())
        fut = self._executor.submit(self._run_copy, self._load_plan, self.load_stream,
                                    meta.load_cpu_blocks, meta.load_gpu_blocks,
                                    self._load_compute_done)
        self._inflight.append((fut, False, list(meta.load_req_ids)))

    def wait_for_save(self) -> None:
        meta = self._meta
        if meta is None or not meta.store_gpu_blocks:
            return
        # the store reads blocks this step's forward is still writing on the compute stream
        self._store_compute_done.record(torch.cuda.current_stream())
        fut = self._executor.submit(self._run_copy, self._store_plan, self.store_stream,
                                    meta.store_gpu_blocks, meta.store_cpu_blocks,
                                    self._store_compute_done)
        self._inflight.append((fut, True, list(meta.store_req_ids)))

    def get_finished(self) -> tuple[Optional[set[str]], Optional[set[str]]]:
        sending: set[str] = set()
        recving: set[str] = set()
        while self._inflight:
            fut, is_store, req_ids = self._inflight[0]
            if not fut.done() or not fut.result().query():
                break
            self._inflight.pop(0)
            (sending if is_store else recving).update(req_ids)
        return sending or None, recving or None
