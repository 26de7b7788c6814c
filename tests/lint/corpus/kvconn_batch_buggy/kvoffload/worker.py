# SPDX-License-Identifier: Apache-2.0
import logging
import queue
import threading
from dataclasses import dataclass

import torch

from .batch_copy import BlockCopier, make_copy_attrs
from .constants import COPY_THREAD_NAME, DEFAULT_NUM_CPU_BLOCKS
from .metadata import OffloadConnectorMetadata, TransferSpec

logger = logging.getLogger(__name__)


@dataclass
class _CopyJob:
    req_id: str
    spec: TransferSpec
    is_store: bool
    ready: torch.cuda.Event


class OffloadingWorker:
    def __init__(self, device: torch.device,
                 num_cpu_blocks: int = DEFAULT_NUM_CPU_BLOCKS) -> None:
        self.device = device
        self.num_cpu_blocks = num_cpu_blocks
        self.store_stream = torch.cuda.Stream(device=device)
        self.load_stream = torch.cuda.Stream(device=device)
        self._jobs: "queue.Queue[_CopyJob | None]" = queue.Queue()
        self._inflight: list[tuple[_CopyJob, torch.cuda.Event]] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(
            target=self._copy_loop, name=COPY_THREAD_NAME, daemon=True)

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        gpu = [t.view(torch.int8).view(t.shape[0], -1) for t in kv_caches.values()]
        self.cpu_caches = [
            torch.zeros((self.num_cpu_blocks, g.shape[1]), dtype=torch.int8,
                        pin_memory=True) for g in gpu]
        self._store = BlockCopier(gpu, self.cpu_caches, make_copy_attrs())
        self._load = BlockCopier(self.cpu_caches, gpu, make_copy_attrs())
        self._thread.start()

    def _submit(self, reqs: dict[str, TransferSpec], is_store: bool) -> None:
        if not reqs:
            return
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream(self.device))
        for req_id, spec in reqs.items():
            self._jobs.put(_CopyJob(req_id, spec, is_store, ready))

    def start_load_kv(self, meta: OffloadConnectorMetadata) -> None:
        self._submit(meta.reqs_to_load, is_store=False)

    def wait_for_save(self, meta: OffloadConnectorMetadata) -> None:
        self._submit(meta.reqs_to_store, is_store=True)

    def _copy_loop(self) -> None:
        torch.cuda.set_device(self.device)
        while (job := self._jobs.get()) is not None:
            stream = self.store_stream if job.is_store else self.load_stream
            copier = self._store if job.is_store else self._load
            stream.wait_event(job.ready)
            nbytes = copier.copy(job.spec.src_block_ids, job.spec.dst_block_ids, stream)
            done = torch.cuda.Event()
            done.record(stream)
            with self._lock:
                self._inflight.append((job, done))
            logger.debug("%s %s: %d bytes queued", job.req_id,
                         "store" if job.is_store else "load", nbytes)

    def get_finished(self) -> tuple[set[str], set[str]]:
        sending: set[str] = set()
        recving: set[str] = set()
        with self._lock:
            pending = []
            for job, done in self._inflight:
                if not done.query():
                    pending.append((job, done))
                    continue
                (sending if job.is_store else recving).add(job.req_id)
            self._inflight = pending
        return sending, recving

    def shutdown(self) -> None:
        self._jobs.put(None)
        self._thread.join()
