"""Worker side: a DMA thread per direction fed from start_load_kv (loads) and wait_for_save
(stores). Each spec carries an event recorded on the compute stream at submission: loads
must not overwrite blocks that queued kernels still read, stores must not read blocks the
forward pass is still writing."""

import itertools
import queue
import threading
from typing import Dict, List, Optional, Set, Tuple

import torch

from kv_dma import dma
from kv_dma.spec import TransferDirection, TransferSpec


class DmaThread:
    def __init__(self, direction: TransferDirection, tables: dma.BlockTables, device: torch.device):
        self.direction = direction
        self.tables = tables
        self.device = device
        self.stream = torch.cuda.Stream(device=device)
        self.attrs = dma.attributes_for(direction, device.index or 0)
        self.specs: "queue.Queue[Optional[TransferSpec]]" = queue.Queue()
        self.issued: "queue.Queue[TransferSpec]" = queue.Queue()
        self.thread = threading.Thread(target=self._serve, name=f"kv-dma-{direction.name}",
                                       daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        torch.cuda.set_device(self.device)
        while True:
            spec = self.specs.get()
            if spec is None:
                return
            dsts, srcs, sizes = self.tables.addresses(spec.direction, spec.src_blocks, spec.dst_blocks)
            self.stream.wait_event(spec.ready)
            dma.batch_copy(dsts, srcs, sizes, self.attrs, self.stream)
            spec.done.record(self.stream)
            self.issued.put(spec)


class OffloadWorker:
    def __init__(self, num_cpu_blocks: int):
        self.num_cpu_blocks = num_cpu_blocks
        self.job_ids = itertools.count()
        self.job_reqs: Dict[int, str] = {}
        self.in_flight: List[TransferSpec] = []

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        device = next(iter(kv_caches.values())).device
        cpu = {name: torch.empty((self.num_cpu_blocks,) + tuple(t.shape[1:]), dtype=t.dtype,
                                 pin_memory=True) for name, t in kv_caches.items()}
        tables = dma.BlockTables(kv_caches, cpu)
        self.loader = DmaThread(TransferDirection.CPU_TO_GPU, tables, device)
        self.saver = DmaThread(TransferDirection.GPU_TO_CPU, tables, device)

    def _submit(self, thread: DmaThread, req_id: str, src: List[int], dst: List[int]) -> None:
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        spec = TransferSpec(next(self.job_ids), thread.direction, src, dst, ready)
        self.job_reqs[spec.job_id] = req_id
        thread.specs.put(spec)

    def start_load_kv(self, meta) -> None:
        for req_id, (cpu_blocks, gpu_blocks) in meta.loads.items():
            self._submit(self.loader, req_id, cpu_blocks, gpu_blocks)

    def wait_for_save(self, meta) -> None:
        for req_id, (gpu_blocks, cpu_blocks) in meta.stores.items():
            self._submit(self.saver, req_id, gpu_blocks, cpu_blocks)

    def get_finished(self) -> Tuple[Set[str], Set[str]]:
        for t in (self.loader, self.saver):
            while not t.issued.empty():
                self.in_flight.append(t.issued.get_nowait())
        sent, recved = set(), set()
        for spec in [s for s in self.in_flight if s.done.query()]:
            self.in_flight.remove(spec)
            req = self.job_reqs.pop(spec.job_id)
            (sent if spec.direction is TransferDirection.GPU_TO_CPU else recved).add(req)
        return sent, recved
