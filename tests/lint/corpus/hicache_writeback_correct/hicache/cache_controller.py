import logging
import queue
import threading
from typing import Optional

import torch

from hicache.constants import WRITE_POLICY_WRITE_THROUGH, WRITE_QUEUE_POLL_TIMEOUT_S
from hicache.io_struct import CacheOperation
from hicache.memory_pool_host import MHATokenToKVPoolHost

logger = logging.getLogger(__name__)


class HiCacheController:
    def __init__(
        self,
        mem_pool_device,
        mem_pool_host: MHATokenToKVPoolHost,
        device: str = "cuda",
        write_policy: str = WRITE_POLICY_WRITE_THROUGH,
    ):
        self.mem_pool_device = mem_pool_device
        self.mem_pool_host = mem_pool_host
        self.write_policy = write_policy
        self.device_module = torch.get_device_module(device)
        self.write_stream = self.device_module.Stream()

        self.write_queue: "queue.Queue[CacheOperation]" = queue.Queue()
        self.ack_write_queue: "queue.Queue[int]" = queue.Queue()
        self.stop_event = threading.Event()
        self.write_thread = threading.Thread(target=self.write_thread_func_direct, daemon=True)
        self.write_thread.start()

    def write(self, device_start: int, num_tokens: int, node_id: int, priority: int = 0) -> Optional[int]:
        try:
            host_start = self.mem_pool_host.alloc(num_tokens)
        except RuntimeError:
            logger.debug("host pool full, skip backup of node %d", node_id)
            return None
        ready_event = self.device_module.Event()
        ready_event.record(self.device_module.current_stream())
        self.write_queue.put(
            CacheOperation(host_start, device_start, num_tokens, node_id, priority, ready_event)
        )
        return host_start

    def write_thread_func_direct(self):
        self.device_module.set_device(self.mem_pool_device.device)
        while not self.stop_event.is_set():
            try:
                op = self.write_queue.get(block=True, timeout=WRITE_QUEUE_POLL_TIMEOUT_S)
            except queue.Empty:
                continue
            with self.device_module.stream(self.write_stream):
                self.write_stream.wait_event(op.ready_event)
                self.mem_pool_host.backup_from_device_all_layer(
                    self.mem_pool_device, op.host_start, op.device_start, op.num_tokens
                )
            self.write_stream.synchronize()
            self.ack_write_queue.put(op.node_id)

    def shutdown(self):
        self.stop_event.set()
        self.write_thread.join()
