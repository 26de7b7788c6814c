"""Storage backup in the shape of HiCache's L2-to-L3 path: the scheduler hands a backup job to a
thread pool through functools.partial; the job copies device pages into pinned host pages on
a backup stream, then writes each page to the storage backend.
Bugs: (1) the job's wait_stream(torch.cuda.current_stream()) runs on the pool thread, whose
current stream is that thread's default stream, not the scheduler's forward stream, so the
copy is not ordered behind the kernels that wrote the pages; (2) the completion event is
recorded before the copies are issued, so synchronizing it does not wait for them and the
storage write reads host pages the copies may still be filling."""

import concurrent.futures
import functools

import torch

from hicache_storage.storage import HiCacheFile


class StorageBackup:
    def __init__(self, num_device_pages, num_host_pages, page_bytes, root):
        self.device_kv = torch.zeros((num_device_pages, page_bytes), dtype=torch.uint8, device="cuda")
        self.host_kv = torch.empty((num_host_pages, page_bytes), dtype=torch.uint8, pin_memory=True)
        self.backup_stream = torch.cuda.Stream()
        self.storage = HiCacheFile(root)
        self.executor = concurrent.futures.ThreadPoolExecutor(max_workers=2)

    def backup(self, keys, device_pages, host_pages):
        job = functools.partial(self._backup_pages, keys, device_pages, host_pages)
        return self.executor.submit(job)

    def _backup_pages(self, keys, device_pages, host_pages):
        self.backup_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.backup_stream):
            done = torch.cuda.Event()
            done.record()
            for h, d in zip(host_pages, device_pages):
                # expect: KVG001
                self.host_kv[h].copy_(self.device_kv[d], non_blocking=True)
        done.synchronize()
        for key, h in zip(keys, host_pages):
            self.storage.set(key, self.host_kv[h])
        return len(keys)


class Scheduler:
    def __init__(self, model, backup):
        self.model = model
        self.backup = backup
        self.forward_stream = torch.cuda.Stream()
        self.pending = []

    def step(self, batch):
        with torch.cuda.stream(self.forward_stream):
            self.model.forward(batch, self.backup.device_kv)
            keys, device_pages, host_pages = batch.pages_to_back_up()
            self.pending.append(self.backup.backup(keys, device_pages, host_pages))
