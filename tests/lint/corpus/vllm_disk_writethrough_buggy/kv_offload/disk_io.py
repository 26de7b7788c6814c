"""CPU <-> disk tier: one preallocated file per KV tensor on local NVMe, a block of tensor i
at offset ``disk_block * block_bytes``. Writes are fire-and-forget on an I/O pool."""

import os
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import torch


class DiskIOWorker:
    def __init__(self, cpu_tensors, disk_path, num_disk_blocks, io_threads=4):
        self.cpu_tensors = cpu_tensors
        self.block_bytes = [t[0].numel() * t.element_size() for t in cpu_tensors]
        os.makedirs(disk_path, exist_ok=True)
        self._fds = []
        for idx, nbytes in enumerate(self.block_bytes):
            fd = os.open(os.path.join(disk_path, f"kv_{idx}.bin"), os.O_RDWR | os.O_CREAT)
            os.ftruncate(fd, num_disk_blocks * nbytes)
            self._fds.append(fd)
        self._pool = ThreadPoolExecutor(max_workers=io_threads, thread_name_prefix="kv-disk")
        self._pending = deque()
        self._lock = threading.Lock()

    def _write_block(self, tensor_idx, cpu_block, disk_block):
        # expect: KVG003
        data = self.cpu_tensors[tensor_idx][cpu_block].numpy().tobytes()
        os.pwrite(self._fds[tensor_idx], data, disk_block * self.block_bytes[tensor_idx])

    def _read_block(self, tensor_idx, cpu_block, disk_block):
        nbytes = self.block_bytes[tensor_idx]
        data = os.pread(self._fds[tensor_idx], nbytes, disk_block * nbytes)
        dst = self.cpu_tensors[tensor_idx][cpu_block]
        dst.copy_(torch.frombuffer(bytearray(data), dtype=dst.dtype).view(dst.shape))

    def submit_writes(self, cpu_blocks, disk_blocks):
        for cpu_block, disk_block in zip(cpu_blocks, disk_blocks):
            for idx in range(len(self.cpu_tensors)):
                fut = self._pool.submit(self._write_block, idx, cpu_block, disk_block)
                with self._lock:
                    self._pending.append(fut)

    def read_blocks(self, cpu_blocks, disk_blocks):
        futures = [
            self._pool.submit(self._read_block, idx, cpu_block, disk_block)
            for cpu_block, disk_block in zip(cpu_blocks, disk_blocks)
            for idx in range(len(self.cpu_tensors))
        ]
        for fut in futures:
            fut.result()
