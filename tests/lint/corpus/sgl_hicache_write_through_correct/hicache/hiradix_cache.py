"""Tree-side bookkeeping for write-through backups and the L3 storage thread."""
import queue
import threading
from typing import BinaryIO, Dict, List

from .cache_controller import HiCacheController


class HiRadixBackupTracker:
    def __init__(self, controller: HiCacheController, storage_file: BinaryIO):
        self.cache_controller = controller
        self.host_pages_of: Dict[int, List[int]] = {}
        self.ongoing_write_through: Dict[int, List[int]] = {}
        self._storage_queue: "queue.Queue" = queue.Queue()
        self._storage_file = storage_file
        self._storage_thread = threading.Thread(target=self._storage_backup_loop, daemon=True)
        self._storage_thread.start()

    def write_backup(self, node_id: int, device_pages: List[int]) -> None:
        host_pages = self.cache_controller.write(device_pages, node_id)
        if host_pages:
            self.ongoing_write_through[node_id] = host_pages

    def writing_check(self) -> None:
        self.cache_controller.start_writing()
        acks = self.cache_controller.ack_write_queue
        while acks and acks[0].finish_event.query():
            ack = acks.pop(0)
            for node_id in ack.node_ids:
                pages = self.ongoing_write_through.pop(node_id)
                self.host_pages_of[node_id] = pages
                self._storage_queue.put((node_id, pages, ack.finish_event))

    def _storage_backup_loop(self) -> None:
        pool = self.cache_controller.mem_pool_host
        while True:
            node_id, pages, finish_event = self._storage_queue.get()
            finish_event.synchronize()
            for h in pages:
                page_k = pool.k_buffer[:, h : h + pool.page_size]
                self._storage_file.write(page_k.numpy().tobytes())
