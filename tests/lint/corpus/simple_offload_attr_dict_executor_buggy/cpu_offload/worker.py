from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List, Optional, Set, Tuple

import torch

from cpu_offload.copy_attrs import make_attributes
from cpu_offload.dma import batch_copy


class SimpleCPUOffloadWorker:
    def __init__(self, num_cpu_blocks: int, attr_overrides: Optional[dict] = None):
        self.num_cpu_blocks = num_cpu_blocks
        self.attr_overrides = attr_overrides or {}
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kv-cpu-offload")
        self._pending: List[Tuple[Future, str, Set[str]]] = []

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        self.gpu_caches = [t.view(t.shape[0], -1) for t in kv_caches.values()]
        self.cpu_caches = [torch.zeros((self.num_cpu_blocks, t.shape[1]), dtype=t.dtype,
                                       pin_memory=True) for t in self.gpu_caches]
        self.bytes_per_block = [t.stride(0) * t.element_size() for t in self.gpu_caches]
        self.device = self.gpu_caches[0].device
        low_priority, _ = torch.cuda.Stream.priority_range()
        self.store_stream = torch.cuda.Stream(priority=low_priority)
        self.load_stream = torch.cuda.Stream(priority=low_priority)
        self.store_attrs = make_attributes("store", self.attr_overrides.get("store"))
        self.load_attrs = make_attributes("load", self.attr_overrides.get("load"))

    def _pointers(self, srcs: List[torch.Tensor], dsts: List[torch.Tensor],
                  src_blocks: List[int], dst_blocks: List[int]):
        src_ptrs, dst_ptrs, sizes = [], [], []
        for src, dst, nbytes in zip(srcs, dsts, self.bytes_per_block):
            for s, d in zip(src_blocks, dst_blocks):
                src_ptrs.append(src.data_ptr() + s * nbytes)
                dst_ptrs.append(dst.data_ptr() + d * nbytes)
                sizes.append(nbytes)
        return src_ptrs, dst_ptrs, sizes

    def _store_job(self, gpu_blocks: List[int], cpu_blocks: List[int],
                   compute_done: torch.cuda.Event) -> torch.cuda.Event:
        torch.cuda.set_device(self.device)
        src_ptrs, dst_ptrs, sizes = self._pointers(self.gpu_caches, self.cpu_caches, gpu_blocks, cpu_blocks)
        self.store_stream.wait_event(compute_done)
        batch_copy(dst_ptrs, src_ptrs, sizes, self.store_attrs, self.store_stream)
        done = torch.cuda.Event()
        done.record(self.store_stream)
        return done

    def _load_job(self, cpu_blocks: List[int], gpu_blocks: List[int],
                  compute_done: torch.cuda.Event) -> torch.cuda.Event:
        torch.cuda.set_device(self.device)
        src_ptrs, dst_ptrs, sizes = self._pointers(self.cpu_caches, self.gpu_caches, cpu_blocks, gpu_blocks)
        self.load_stream.wait_event(compute_done)
        batch_copy(dst_ptrs, src_ptrs, sizes, self.load_attrs, self.load_stream)
        done = torch.cuda.Event()
        done.record(self.load_stream)
        return done

    def get_finished(self, metadata) -> Tuple[Set[str], Set[str]]:
        """Called after the forward: submit this step's copies, report the ones that landed."""
        compute_done = torch.cuda.Event()
        compute_done.record()
        if metadata.store_gpu_blocks:
            fut = self._executor.submit(self._store_job, metadata.store_gpu_blocks,
                                        metadata.store_cpu_blocks, compute_done)
            self._pending.append((fut, "store", set(metadata.store_req_ids)))
        if metadata.load_cpu_blocks:
            fut = self._executor.submit(self._load_job, metadata.load_cpu_blocks,
                                        metadata.load_gpu_blocks, compute_done)
            self._pending.append((fut, "load", set(metadata.load_req_ids)))
        saved, loaded = set(), set()
        still_pending = []
        for fut, kind, req_ids in self._pending:
            if fut.done() and fut.result().query():
                (saved if kind == "store" else loaded).update(req_ids)
            else:
                still_pending.append((fut, kind, req_ids))
        self._pending = still_pending
        return saved, loaded
