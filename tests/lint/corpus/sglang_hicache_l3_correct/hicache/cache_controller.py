import logging
import threading
from dataclasses import dataclass, field
from queue import Empty, Queue

import torch

from .memory_pool_host import MHATokenToKVPoolHost
from .mooncake_store import MooncakeStore

logger = logging.getLogger(__name__)


@dataclass
class CacheOperation:
    host_pages: list[int]
    device_pages: list[int]
    node_id: int
    page_hashes: list[str] = field(default_factory=list)
    ready_event: torch.cuda.Event | None = None


@dataclass
class PrefetchOperation:
    request_id: str
    host_pages: list[int]
    page_hashes: list[str]
    completed_pages: int = 0


class HiCacheController:
    def __init__(self, mem_pool_device, mem_pool_host: MHATokenToKVPoolHost, storage: MooncakeStore):
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.storage = storage
        self.device = torch.cuda.current_device()

        self.write_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()

        self.write_queue: Queue[CacheOperation] = Queue()
        self.ack_write_queue: Queue[tuple[int, torch.cuda.Event]] = Queue()
        self.prefetch_queue: Queue[PrefetchOperation] = Queue()
        self.ack_prefetch_queue: Queue[PrefetchOperation] = Queue()
        self.load_queue: list[CacheOperation] = []

        self.stop_event = threading.Event()
        self.backup_thread = threading.Thread(target=self.backup_thread_func, daemon=True)
        self.prefetch_thread = threading.Thread(target=self.prefetch_thread_func, daemon=True)
        self.backup_thread.start()
        self.prefetch_thread.start()

    # ---- called from the scheduler thread ----
    def write(self, device_pages: list[int], page_hashes: list[str], node_id: int) -> list[int] | None:
        host_pages = self.mem_pool_host.alloc_pages(len(device_pages))
        if host_pages is None:
            return None
        op = CacheOperation(host_pages, device_pages, node_id, page_hashes)
        # pages were filled by the forward pass on this thread's stream
        op.ready_event = torch.cuda.Event()
        op.ready_event.record()
        self.write_queue.put(op)
        return host_pages

    def load(self, host_pages: list[int], device_pages: list[int], node_id: int) -> None:
        self.load_queue.append(CacheOperation(host_pages, device_pages, node_id))

    def start_loading(self) -> torch.cuda.Event | None:
        if not self.load_queue:
            return None
        ops, self.load_queue = self.load_queue, []
        start_event, finish_event = torch.cuda.Event(), torch.cuda.Event()
        start_event.record()
        with torch.cuda.stream(self.load_stream):
            start_event.wait(self.load_stream)
            for op in ops:
                self.mem_pool_host.load_pages_to_device(self.mem_pool_device, op.host_pages, op.device_pages)
            finish_event.record()
        # the forward stream waits on this before attention touches the pages
        return finish_event

    def prefetch(self, request_id: str, page_hashes: list[str]) -> PrefetchOperation | None:
        host_pages = self.mem_pool_host.alloc_pages(len(page_hashes))
        if host_pages is None:
            return None
        op = PrefetchOperation(request_id, host_pages, page_hashes)
        self.prefetch_queue.put(op)
        return op

    # ---- background threads ----
    def backup_thread_func(self) -> None:
        torch.cuda.set_device(self.device)
        while not self.stop_event.is_set():
            try:
                op = self.write_queue.get(block=True, timeout=1)
            except Empty:
                continue
            finish_event = torch.cuda.Event()
            with torch.cuda.stream(self.write_stream):
                self.write_stream.wait_event(op.ready_event)
                self.mem_pool_host.backup_pages_from_device(
                    self.mem_pool_device, op.host_pages, op.device_pages
                )
                finish_event.record()
            self.ack_write_queue.put((op.node_id, finish_event))

            # write-through to L3: one K and one V object per page
            finish_event.synchronize()
            keys, values = [], []
            for page_hash, page_id in zip(op.page_hashes, op.host_pages):
                k, v = self.mem_pool_host.get_page_kv(page_id)
                keys += [f"{page_hash}_k", f"{page_hash}_v"]
                values += [k, v]
            if not self.storage.batch_set(keys, values):
                logger.warning("L3 backup failed for node %d", op.node_id)

    def prefetch_thread_func(self) -> None:
        while not self.stop_event.is_set():
            try:
                op = self.prefetch_queue.get(block=True, timeout=1)
            except Empty:
                continue
            keys = [f"{h}_{kv}" for h in op.page_hashes for kv in ("k", "v")]
            ptrs, sizes = self.mem_pool_host.get_page_buffer_meta(op.host_pages)
            op.completed_pages = self.storage.batch_get_into(keys, ptrs, sizes) // 2
            self.ack_prefetch_queue.put(op)

    def shutdown(self) -> None:
        self.stop_event.set()
        self.backup_thread.join()
        self.prefetch_thread.join()
