import logging
import threading
from dataclasses import dataclass, field
from queue import Empty, Queue
from typing import List, Optional

import numpy as np
from numba import cuda

from sgl_hicache_nb.constants import QUEUE_POLL_S, STORAGE_BATCH_PAGES
from sgl_hicache_nb.host_pool import HostKVPool
from sgl_hicache_nb.storage import HiCacheFileStorage
from sgl_hicache_nb.transfer import backup_pages_to_host, load_pages_to_device

logger = logging.getLogger(__name__)


@dataclass
class TransferOp:
    host_pages: np.ndarray
    device_pages: np.ndarray
    keys: List[str] = field(default_factory=list)
    start_event: Optional[object] = None


class LayerDoneCounter:
    def __init__(self, num_layers: int):
        self.events = [cuda.event(timing=False) for _ in range(num_layers)]
        self.recorded = [threading.Event() for _ in range(num_layers)]

    def reset(self) -> None:
        for flag in self.recorded:
            flag.clear()

    def mark(self, layer_id: int, stream) -> None:
        self.events[layer_id].record(stream)
        self.recorded[layer_id].set()

    def wait_until(self, layer_id: int, compute_stream) -> None:
        self.recorded[layer_id].wait()
        self.events[layer_id].wait(compute_stream)


class HiCacheNumbaController:
    def __init__(self, device_kv_layers, host_pool: HostKVPool, compute_stream_ptr: int,
                 storage: Optional[HiCacheFileStorage] = None):
        self.device_kv_layers = device_kv_layers
        self.host_pool = host_pool
        self.page_size = host_pool.page_size
        self.storage = storage
        self.compute_stream = cuda.external_stream(compute_stream_ptr)
        self.write_stream = cuda.stream()
        self.load_stream = cuda.stream()
        self.layer_done_counter = LayerDoneCounter(host_pool.layer_num)

        self.write_queue: Queue = Queue()
        self.load_queue: Queue = Queue()
        self.backup_queue: Queue = Queue()
        self.ack_write_queue: Queue = Queue()
        self.pending_loads: List[TransferOp] = []
        self.stop_event = threading.Event()
        self.threads = [
            threading.Thread(target=fn, daemon=True)
            for fn in (self._write_thread_func, self._load_thread_func, self._backup_thread_func)
        ]
        for t in self.threads:
            t.start()

    def _fence_compute(self, stream) -> None:
        ev = cuda.event(timing=False)
        ev.record(self.compute_stream)
        ev.wait(stream)

    def write(self, host_pages: np.ndarray, device_pages: np.ndarray, keys: List[str]) -> None:
        ready = cuda.event(timing=False)
        ready.record(self.compute_stream)
        self.write_queue.put(TransferOp(host_pages, device_pages, keys, ready))

    def _write_thread_func(self) -> None:
        while not self.stop_event.is_set():
            try:
                op = self.write_queue.get(timeout=QUEUE_POLL_S)
            except Empty:
                continue
            op.start_event.wait(self.write_stream)
            for layer_id, dev_layer in enumerate(self.device_kv_layers):
                backup_pages_to_host(dev_layer, self.host_pool.kv_buffer, layer_id, op.device_pages,
                                     op.host_pages, self.page_size, self.write_stream)
            done = cuda.event(timing=False)
            done.record(self.write_stream)
            self.ack_write_queue.put((done, op))
            if self.storage is not None and op.keys:
                self.backup_queue.put(op)

    def _backup_thread_func(self) -> None:
        host_buf = self.host_pool.kv_buffer
        while not self.stop_event.is_set():
            try:
                op = self.backup_queue.get(timeout=QUEUE_POLL_S)
            except Empty:
                continue
            self.write_stream.synchronize()
            for i in range(0, len(op.host_pages), STORAGE_BATCH_PAGES):
                starts = op.host_pages[i : i + STORAGE_BATCH_PAGES]
                payload = [host_buf[:, h : h + self.page_size].tobytes() for h in starts]
                self.storage.batch_set(op.keys[i : i + STORAGE_BATCH_PAGES], payload)

    def load(self, host_pages: np.ndarray, device_pages: np.ndarray) -> None:
        self.pending_loads.append(TransferOp(host_pages, device_pages))

    def start_loading(self) -> Optional[LayerDoneCounter]:
        if not self.pending_loads:
            return None
        op = TransferOp(
            np.concatenate([o.host_pages for o in self.pending_loads]),
            np.concatenate([o.device_pages for o in self.pending_loads]),
        )
        self.pending_loads = []
        op.start_event = cuda.event(timing=False)
        op.start_event.record(self.compute_stream)
        self.layer_done_counter.reset()
        self.load_queue.put(op)
        return self.layer_done_counter

    def _load_thread_func(self) -> None:
        while not self.stop_event.is_set():
            try:
                op = self.load_queue.get(timeout=QUEUE_POLL_S)
            except Empty:
                continue
            op.start_event.wait(self.load_stream)
            for layer_id, dev_layer in enumerate(self.device_kv_layers):
                load_pages_to_device(self.host_pool.kv_buffer, dev_layer, layer_id, op.host_pages,
                                     op.device_pages, self.page_size, self.load_stream)
                self.layer_done_counter.mark(layer_id, self.load_stream)

    def load_back_blocking(self, host_pages: np.ndarray, device_pages: np.ndarray) -> None:
        self._fence_compute(self.load_stream)
        for layer_id, dev_layer in enumerate(self.device_kv_layers):
            load_pages_to_device(self.host_pool.kv_buffer, dev_layer, layer_id, host_pages,
                                 device_pages, self.page_size, self.load_stream)
        self.load_stream.synchronize()

    def shutdown(self) -> None:
        self.stop_event.set()
        for t in self.threads:
            t.join()
