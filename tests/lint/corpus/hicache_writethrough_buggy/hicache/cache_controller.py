import logging
import threading
from queue import Empty, Queue
from typing import List, NamedTuple, Optional

from hicache.memory_pool import MHATokenToKVPool
from hicache.memory_pool_host import MHATokenToKVPoolHost
from hicache.utils import HICACHE_WRITE_QUEUE_TIMEOUT_S, get_device_module

logger = logging.getLogger(__name__)

device_module = get_device_module()


class CacheOperation:
    counter = 0

    def __init__(self, host_pages: List[int], device_pages: List[int], node_id: int, priority: Optional[int] = None):
        self.host_pages = host_pages
        self.device_pages = device_pages
        self.node_ids = [node_id]
        self.id = CacheOperation.counter
        CacheOperation.counter += 1
        self.priority = priority if priority is not None else self.id

    def __lt__(self, other: "CacheOperation") -> bool:
        return self.priority < other.priority


class HiCacheAck(NamedTuple):
    node_ids: List[int]
    num_pages: int


class HiCacheController:
    def __init__(
        self,
        mem_pool_device: MHATokenToKVPool,
        mem_pool_host: MHATokenToKVPoolHost,
        write_policy: str = "write_through",
    ):
        if write_policy not in ("write_through", "write_through_selective", "write_back"):
            raise ValueError(f"Invalid write policy: {write_policy}")
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.write_policy = write_policy

        self.write_stream = device_module.Stream()
        self.write_queue: "Queue[CacheOperation]" = Queue()
        self.ack_write_queue: "Queue[HiCacheAck]" = Queue()

        self.stop_event = threading.Event()
        self.write_thread = threading.Thread(target=self.write_thread_func, daemon=True)
        self.write_thread.start()

    def write(self, device_pages: List[int], node_id: int = -1, priority: Optional[int] = None) -> Optional[List[int]]:
        """Back up device pages of a radix node into the host pool."""
        host_pages = self.mem_pool_host.alloc_pages(len(device_pages))
        if host_pages is None:
            return None
        op = CacheOperation(host_pages, device_pages, node_id, priority)
        self.write_queue.put(op)
        return host_pages

    def write_thread_func(self) -> None:
        device_module.set_stream(self.write_stream)
        while not self.stop_event.is_set():
            try:
                op = self.write_queue.get(block=True, timeout=HICACHE_WRITE_QUEUE_TIMEOUT_S)
            except Empty:
                continue
            self.write_stream.wait_stream(device_module.current_stream())
            self.mem_pool_host.backup_from_device_all_layer(self.mem_pool_device, op.host_pages, op.device_pages)
            self.write_stream.synchronize()
            self.ack_write_queue.put(HiCacheAck(op.node_ids, len(op.host_pages)))

    def evict_host(self, host_pages: List[int]) -> int:
        return self.mem_pool_host.free(host_pages)

    def shutdown(self) -> None:
        self.stop_event.set()
        self.write_thread.join()
        logger.info("HiCacheController stopped, %d writes pending", self.write_queue.qsize())
