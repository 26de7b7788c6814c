import logging
import threading
from dataclasses import dataclass
from queue import Empty, Queue
from typing import List, NamedTuple, Optional

from hicache.device import device_module, new_event, new_stream
from hicache.memory_pool import MHATokenToKVPool
from hicache.memory_pool_host import MHATokenToKVPoolHost

logger = logging.getLogger(__name__)


@dataclass
class CacheOperation:
    host_starts: List[int]
    device_starts: List[int]
    node_ids: List[int]
    ready_event: Optional[object] = None


class HiCacheAck(NamedTuple):
    finish_event: object
    node_ids: List[int]


class HiCacheController:
    def __init__(
        self,
        mem_pool_device: MHATokenToKVPool,
        mem_pool_host: MHATokenToKVPoolHost,
        page_size: int,
        write_policy: str = "write_through",
    ):
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.page_size = page_size
        self.write_policy = write_policy
        self.device = mem_pool_device.device
        self.layer_num = mem_pool_device.layer_num

        self.write_stream = new_stream()
        self.load_stream = new_stream()
        self.write_queue: "Queue[CacheOperation]" = Queue()
        self.ack_write_queue: "Queue[HiCacheAck]" = Queue()
        self.load_queue: List[CacheOperation] = []
        self.load_start_event = new_event()
        self.layer_load_events = [new_event() for _ in range(self.layer_num)]

        self.stop_event = threading.Event()
        self.write_thread = threading.Thread(
            target=self.write_thread_func, daemon=True
        )
        self.write_thread.start()

    def write(self, device_starts: List[int], node_id: int = -1) -> Optional[List[int]]:
        host_starts = self.mem_pool_host.alloc(len(device_starts) * self.page_size)
        if host_starts is None:
            return None
        ready_event = new_event()
        ready_event.record()
        self.write_queue.put(
            CacheOperation(host_starts, device_starts, [node_id], ready_event)
        )
        return host_starts

    def write_back_on_evict(
        self, device_starts: List[int], node_id: int
    ) -> Optional[List[int]]:
        """Under write_back, pages are copied to host only when evicted from device."""
        host_starts = self.mem_pool_host.alloc(len(device_starts) * self.page_size)
        if host_starts is None:
            return None
        ready_event = new_event()
        ready_event.record()
        self.write_queue.put(
            CacheOperation(host_starts, device_starts, [node_id], ready_event)
        )
        return host_starts

    def write_thread_func(self) -> None:
        device_module.set_device(self.device)
        while not self.stop_event.is_set():
            try:
                op = self.write_queue.get(block=True, timeout=1)
            except Empty:
                continue
            finish_event = new_event()
            with device_module.stream(self.write_stream):
                if op.ready_event is not None:
                    op.ready_event.wait(self.write_stream)
                self.mem_pool_host.backup_from_device_all_layer(
                    self.mem_pool_device, op.host_starts, op.device_starts
                )
                finish_event.record(self.write_stream)
            self.ack_write_queue.put(HiCacheAck(finish_event, op.node_ids))

    def load(self, host_starts: List[int], node_id: int = -1) -> Optional[List[int]]:
        device_starts = self.mem_pool_device.alloc(len(host_starts) * self.page_size)
        if device_starts is None:
            return None
        self.load_queue.append(CacheOperation(host_starts, device_starts, [node_id]))
        return device_starts

    def start_loading(self) -> None:
        if not self.load_queue:
            return
        host_starts: List[int] = []
        device_starts: List[int] = []
        for op in self.load_queue:
            host_starts.extend(op.host_starts)
            device_starts.extend(op.device_starts)
        self.load_queue.clear()

        self.load_start_event.record()
        with device_module.stream(self.load_stream):
            self.load_start_event.wait(self.load_stream)
            for layer_id in range(self.layer_num):
                self.mem_pool_host.load_to_device_per_layer(
                    self.mem_pool_device, host_starts, device_starts, layer_id
                )
                self.layer_load_events[layer_id].record(self.load_stream)

    def wait_layer_loaded(self, layer_id: int) -> None:
        device_module.current_stream().wait_event(self.layer_load_events[layer_id])
