import logging
import threading
from queue import Empty, Queue
from typing import List, Optional

import torch

from hiload.constants import LOAD_QUEUE_TIMEOUT_S, MAX_LOAD_OPS_PER_BATCH
from hiload.layer_counter import LayerDoneCounter

logger = logging.getLogger(__name__)


class LoadOperation:
    def __init__(self, host_indices: torch.Tensor, device_indices: torch.Tensor, node_id: int):
        self.host_indices = host_indices
        self.device_indices = device_indices
        self.node_id = node_id


class HiCacheController:
    def __init__(self, mem_pool_device_allocator, mem_pool_host):
        self.mem_pool_device_allocator = allocator = mem_pool_device_allocator
        self.mem_pool_device = allocator.get_kvcache()
        self.mem_pool_host = mem_pool_host
        self.layer_num = self.mem_pool_device.layer_num
        self.layer_done_counter = LayerDoneCounter(self.layer_num)

        self.pending_loads: List[LoadOperation] = []
        self.load_queue: Queue = Queue()
        self.ack_load_queue: Queue = Queue()
        self.load_stream = torch.cuda.Stream()

        self.stop_event = threading.Event()
        self.load_thread = threading.Thread(
            target=self.load_thread_func_layer_by_layer, daemon=True
        )
        self.load_thread.start()

    def load(self, host_indices: torch.Tensor, node_id: int = -1) -> Optional[torch.Tensor]:
        device_indices = self.mem_pool_device_allocator.alloc(len(host_indices))
        if device_indices is None:
            return None
        op = LoadOperation(host_indices, device_indices, node_id)
        self.pending_loads.append(op)
        return device_indices

    def start_loading(self) -> None:
        if not self.pending_loads:
            return
        ops = self.pending_loads[:MAX_LOAD_OPS_PER_BATCH]
        self.pending_loads = self.pending_loads[MAX_LOAD_OPS_PER_BATCH:]
        self.layer_done_counter.reset()
        self.load_queue.put(ops)

    def load_thread_func_layer_by_layer(self) -> None:
        while not self.stop_event.is_set():
            try:
                ops: List[LoadOperation] = self.load_queue.get(timeout=LOAD_QUEUE_TIMEOUT_S)
            except Empty:
                continue
            host_indices = torch.cat([op.host_indices for op in ops])
            device_indices = torch.cat([op.device_indices for op in ops])
            self.load_stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.load_stream):
                for layer_id in range(self.layer_num):
                    self.mem_pool_host.load_to_device_per_layer(
                        self.mem_pool_device, host_indices, device_indices, layer_id
                    )
                    self.layer_done_counter.complete(layer_id, self.load_stream)
            for op in ops:
                self.ack_load_queue.put(op.node_id)

    def loading_check(self) -> List[int]:
        finished = []
        while not self.ack_load_queue.empty():
            finished.append(self.ack_load_queue.get_nowait())
        return finished

    def shutdown(self) -> None:
        self.stop_event.set()
        self.load_thread.join()
