"""Worker side of a CPU offloading KV connector (vLLM KVConnectorBase_V1 shape): stores of the
step's finished blocks are queued from wait_for_save, loads from start_load_kv; each job gets
an event recorded on the compute stream at the point it is queued."""

import itertools
from typing import Dict, List, Tuple

import torch

from cpu_offload.config import CPUOffloadConfig
from cpu_offload.transfer_thread import TransferJob, TransferThread


def block_addresses(src: torch.Tensor, dst: torch.Tensor, pairs: List[Tuple[int, int]]):
    block_bytes = src[0].numel() * src.element_size()
    srcs = [src.data_ptr() + s * block_bytes for s, _ in pairs]
    dsts = [dst.data_ptr() + d * block_bytes for _, d in pairs]
    return dsts, srcs, [block_bytes] * len(pairs)


class CPUOffloadingConnectorWorker:
    def __init__(self, extra_config: Dict):
        self.config = CPUOffloadConfig.from_extra_config(extra_config)
        self.job_ids = itertools.count()
        self.gpu_caches: List[torch.Tensor] = []
        self.cpu_caches: List[torch.Tensor] = []

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        self.gpu_caches = list(kv_caches.values())
        self.cpu_caches = [
            torch.empty((self.config.num_cpu_blocks,) + tuple(t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in self.gpu_caches
        ]
        device = self.gpu_caches[0].device
        cfg = self.config
        self.store_thread = TransferThread("store", device, cfg.store_src_order, True,
                                           cfg.prefer_overlap_with_compute)
        self.load_thread = TransferThread("load", device, cfg.load_src_order, False,
                                          cfg.prefer_overlap_with_compute)
        self.store_thread.start()
        self.load_thread.start()

    def _submit(self, thread: TransferThread, srcs_t, dsts_t, pairs) -> int:
        dsts, srcs, sizes = [], [], []
        for src, dst in zip(srcs_t, dsts_t):
            d, s, n = block_addresses(src, dst, pairs)
            dsts += d
            srcs += s
            sizes += n
        ready = torch.cuda.Event()
        ready.record()
        job = TransferJob(next(self.job_ids), dsts, srcs, sizes, ready)
        thread.submit(job)
        return job.job_id

    def start_load_kv(self, loads: List[Tuple[int, int]]) -> None:
        if loads:
            self._submit(self.load_thread, self.cpu_caches, self.gpu_caches, loads)

    def wait_for_save(self, stores: List[Tuple[int, int]]) -> None:
        if stores:
            self._submit(self.store_thread, self.gpu_caches, self.cpu_caches, stores)
